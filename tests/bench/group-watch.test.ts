// bench/groups/runner.ts's GroupWatch: when the groups benchmark calls a group stable, and
// when it calls a leaver's partitions moved; its figures are only as good as these rules.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { GroupWatch } from '../../bench/groups/runner'

test('stable needs every partition owned by one member that has consumed it, and every member owning one', () => {
  const watch = new GroupWatch(4, 2)
  watch.assigned(0, [0, 1, 2, 3])
  for (const p of [0, 1, 2, 3]) watch.consumed(0, p)
  assert.equal(watch.stable(), false, 'member 1 owns nothing yet')
  watch.revoked(0, [2, 3])
  watch.assigned(1, [2, 3])
  assert.equal(watch.stable(), false, 'partitions 2 and 3 have not reached their new owner')
  watch.consumed(1, 2)
  watch.consumed(1, 3)
  assert.equal(watch.stable(), true)
  watch.assigned(0, [3])
  assert.equal(watch.stable(), false, 'two owners of partition 3')
})

test('a record that arrives before its assignment counts once the assignment comes', () => {
  const watch = new GroupWatch(1, 1)
  watch.consumed(0, 0)
  assert.equal(watch.stable(), false)
  watch.assigned(0, [0])
  assert.equal(watch.stable(), true)
})

test("a leaver's partitions have moved once another member consumed each; the leaver's records do not count", async () => {
  const watch = new GroupWatch(2, 2)
  watch.assigned(0, [0])
  watch.assigned(1, [1])
  watch.consumed(0, 0)
  watch.consumed(1, 1)
  const theirs = watch.leaving(1)
  assert.deepEqual(theirs, [1])
  const moved = watch.until(() => watch.moved(theirs), 1000)
  watch.consumed(1, 1)
  watch.revoked(1, [1])
  watch.assigned(0, [1])
  assert.equal(watch.moved(theirs), false)
  watch.consumed(0, 1)
  assert.equal(await moved, true)
  assert.equal(await watch.until(() => false, 10), false, 'until() gives up after its bound')
})
