import Persistence
import Testing

/// The versions one app knows of a table's rows, across a flush: what its commit leaves
/// queued, whether the flush took every queued row or changes came while it ran.
struct VersionTableTests {
  @Test func aCommitOfEveryQueuedRowLeavesNoneQueuedAndRecordsTheirVersions() {
    let table = VersionTable<Int>("cards")
    table.loaded([1: 4])
    table.queued([1, 2, 3])
    let bases = table.bases([1, 2, 3])
    #expect(bases.versions == [4, nil, nil])
    table.committed(
      [
        .init(key: 1, version: 5, isDeletion: false), .init(key: 2, version: 1, isDeletion: false),
        .init(key: 3, version: 1, isDeletion: true),
      ],
      flushed: [1, 2, 3], dropped: [:])
    #expect(![1, 2, 3].contains { table.isQueued($0) })
    #expect(table.seen == [1: 5, 2: 1])
  }

  @Test func rowsQueuedWhileAFlushRunsStayQueuedAfterItsCommit() {
    let table = VersionTable<Int>("cards")
    table.loaded([1: 4, 7: 2])
    table.queued([1, 2])
    _ = table.bases([1, 2])
    // NB: a drain while the flush's transaction runs: 7 changed again, and 2 again.
    table.queued([7, 2])
    table.committed(
      [.init(key: 1, version: 5, isDeletion: false), .init(key: 2, version: 1, isDeletion: false)],
      flushed: [1, 2], dropped: [:])
    #expect(!table.isQueued(1))
    #expect(!table.isQueued(2))
    #expect(table.isQueued(7))
    // NB: the next flush writes 7 against the version it was changed at.
    #expect(table.bases([7]).versions == [2])
  }

  @Test func aFlushOfSomeQueuedRowsLeavesTheOthersQueued() {
    let table = VersionTable<Int>("cards")
    table.queued([1, 2, 3])
    _ = table.bases([1, 3])
    table.committed(
      [.init(key: 1, version: 1, isDeletion: false), .init(key: 3, version: 1, isDeletion: false)],
      flushed: [1, 3], dropped: [:])
    #expect(table.isQueued(2))
    #expect(!table.isQueued(1))
    #expect(!table.isQueued(3))
  }

  @Test func aRowResolvedAsMineWhileAFlushRunsStaysQueued() {
    let table = VersionTable<Int>("cards")
    table.queued([1])
    _ = table.bases([1])
    table.resolve(9, at: 3, keeping: .mine)
    table.committed([.init(key: 1, version: 1, isDeletion: false)], flushed: [1], dropped: [:])
    #expect(table.isQueued(9))
    #expect(table.bases([9]).versions == [3])
  }
}
