// Connecting to a secured cluster: TLS, mutual TLS, SASL PLAIN / SCRAM / OAUTHBEARER and
// delegation tokens. Every option is checked when the Client is made (an unparsable
// certificate, a key without its passphrase: a TypeError naming the option); a refused
// credential fails the first request with AuthenticationError, without retries.
//
//   node dist/examples/security.mjs      # makes the clients; connects to none
import { readFileSync } from 'node:fs'
import { Client } from 'kafkats'

const bootstrap = process.env.KAFKA_BOOTSTRAP ?? 'localhost:9093'

// #region tls
// TLS trusting a private CA; mTLS adds the client's certificate (the broker's ssl.client.auth=required).
export const tls = (): Client => new Client({ bootstrap, tls: { ca: readFileSync('ca.pem') } })
export const mtls = (): Client => new Client({ bootstrap, tls: { ca: readFileSync('ca.pem'), cert: readFileSync('client.pem'), key: readFileSync('client.key') } })
// #endregion tls

// #region sasl
// SCRAM (SCRAM-SHA-256 the same way), over TLS in production (tls: { ca }).
const scram = new Client({ bootstrap, sasl: { mechanism: 'SCRAM-SHA-512', username: 'alice', password: 'alice-secret' } })

// PLAIN sends the password as it is: use it over TLS only.
const plain = new Client({ bootstrap, sasl: { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' } })

// OAUTHBEARER: the provider is called at every authentication and re-authentication, so it can
// hand out a fresh token before the broker's session (connections.max.reauth.ms) ends.
const oauth = new Client({ bootstrap, sasl: { mechanism: 'OAUTHBEARER', token: async () => await fetchTokenFromIdentityProvider() } })

// A delegation token (admin.createDelegationToken) is SCRAM with tokenAuth.
const delegated = new Client({ bootstrap, sasl: { mechanism: 'SCRAM-SHA-256', username: 'token-id', password: 'token-hmac-base64', tokenAuth: true } })
// #endregion sasl

async function fetchTokenFromIdentityProvider (): Promise<string> {
  return 'a-jwt-from-your-identity-provider'
}

for (const client of [scram, plain, oauth, delegated]) await client.close()
console.log('4 SASL clients configured')
