// The documentation site (`npm run docs`): the guides in docs/ and the API reference of every
// entry point of package.json "exports", built by TypeDoc into dist/site/.
//
// TypeDoc alone, not a separate static-site generator: the API reference must come from the
// doc comments anyway, and TypeDoc renders Markdown guides as pages of the same site
// (projectDocuments), with one navigation, one search and links between guides and symbols
// checked by the same build.
//
// The build fails on any warning: a link it cannot resolve, a public type referring to one no
// entry point exports, and an exported symbol without a doc comment. etc/undocumented.txt lists
// the symbols not documented yet, by TypeDoc's full name (a ratchet: a new undocumented export
// fails the build, and so does a listed one that gained a comment or is gone — delete its line).
import { readFileSync } from 'node:fs'

const undocumented = readFileSync(new URL('./etc/undocumented.txt', import.meta.url), 'utf8')
  .split('\n').map(line => line.trim()).filter(line => line !== '' && !line.startsWith('#'))

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  name: 'kafkats',
  entryPoints: ['index.ts', 'kafkajs/index.ts', 'testing/index.ts'],
  tsconfig: 'tsconfig.build.json',
  out: 'dist/site',
  readme: 'README.md',
  projectDocuments: ['docs/*.md'],
  favicon: 'docs/assets/favicon.svg',
  // TypeDoc's default languages, and the broker settings of docs/security.md.
  highlightLanguages: ['bash', 'console', 'css', 'html', 'javascript', 'json', 'jsonc', 'json5', 'yaml', 'tsx', 'typescript', 'properties'],
  excludePrivate: true,
  excludeExternals: true,
  disableGit: true,
  sourceLinkTemplate: 'https://github.com/kafkats/kafkats/blob/main/{path}#L{line}',
  treatWarningsAsErrors: true,
  validation: { notExported: true, invalidLink: true, rewrittenLink: true, notDocumented: true, unusedMergeModuleWith: true },
  // The default kinds, and the members of type literals (options objects, event payloads).
  requiredToBeDocumented: ['Enum', 'EnumMember', 'Variable', 'Function', 'Class', 'Interface', 'Property', 'Method', 'Accessor', 'TypeAlias', 'Namespace', 'Constructor'],
  intentionallyNotDocumented: undocumented,
  // The module-private handle (client/internal.ts): on the public classes as a symbol key, its type is not public by design.
  intentionallyNotExported: ['ClientInternals', 'ProducerInternals']
}
