import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../client/client'
import { systemClock, waitOn } from '../../client/clock'
import { FakeClock, withClock } from '../../testing'

describe('FakeClock', () => {
  test('runs timers only when time is moved past them, in due order', async () => {
    const clock = new FakeClock(1000)
    const ran: string[] = []
    clock.setTimer(() => ran.push('b@30'), 30)
    clock.setTimer(() => ran.push('a@10'), 10)
    const cancelled = clock.setTimer(() => ran.push('cancelled'), 20)
    cancelled.cancel()
    await clock.settle()
    assert.deepEqual(ran, [])
    await clock.advance(29)
    assert.deepEqual(ran, ['a@10'])
    assert.equal(clock.now(), 1029)
    await clock.advance(1)
    assert.deepEqual(ran, ['a@10', 'b@30'])
    assert.equal(clock.pendingTimers, 0)
  })

  test('a timer started by a timer runs in the same step when due within it', async () => {
    const clock = new FakeClock(0)
    const ran: number[] = []
    clock.setTimer(() => { ran.push(clock.now()); clock.setTimer(() => ran.push(clock.now()), 10) }, 10)
    await clock.advance(25)
    assert.deepEqual(ran, [10, 20])
  })

  test('waitOn ends at the timer, on abort, or on a wake promise', async () => {
    const clock = new FakeClock(0)
    let done = false
    const waiting = waitOn(clock, 100).then(() => { done = true })
    await clock.advance(99)
    assert.equal(done, false)
    await clock.advance(1)
    await waiting
    assert.equal(done, true)
    const stop = new AbortController()
    const aborted = waitOn(clock, 100, stop.signal)
    stop.abort()
    await aborted
    let wake!: () => void
    await waitOn(clock, 100, undefined, new Promise<void>(resolve => { wake = resolve; resolve() }))
    wake()
    assert.equal(clock.pendingTimers, 0, 'an ended wait leaves no timer behind')
  })

  test('a client takes its clock from withClock, else the system clock', async () => {
    const clock = new FakeClock()
    const faked = new Client(withClock({ bootstrap: ['127.0.0.1:1'] }, clock))
    const plain = new Client({ bootstrap: ['127.0.0.1:1'] })
    assert.equal(faked.clock, clock)
    assert.equal(plain.clock, systemClock)
    await Promise.all([faked.close(), plain.close()])
  })
})
