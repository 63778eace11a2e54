public import DequeModule

/// The ring buffer and what the encoding pass knows of it.
@usableFromInline
struct RecorderBook: Sendable {
  /// The entries kept, oldest first: entry `firstIndex` and those after it.
  ///
  /// NB: what each recorded, without its index (the position says it) or its timings (kept
  /// apart, most actions have none): appending an entry then retains one reference.
  @usableFromInline var recorded = Deque<RecordedValues>()
  @usableFromInline var nextIndex = 1
  /// The stages' timings logged while a kept action ran, by index; only actions that logged some.
  var timings: [Int: [(String, Duration)]] = [:]
  /// The newest entry written to the session file and the listeners.
  @usableFromInline var lastEncoded = 0
  /// Whether the encoding task has been woken and has not run since.
  var isEncodingSignalled = false
  /// Whether every entry is encoded (a session file or a listener wants them all), or only a
  /// sample, to measure their size.
  var encodesAll = false
  /// Whether a listener waits (a page): each entry is then encoded as soon as it comes.
  var isListened = false
  /// The average size of an encoded entry, from those measured; 0 before the first.
  @usableFromInline var averageBytes = 0.0
  @usableFromInline var measured = 0
  @usableFromInline var initial: RecorderEntry?
  @usableFromInline var evicted = 0
  /// Timings logged for the action running now.
  var pendingTimings: [(String, Duration)] = []

  @usableFromInline init() {}

  /// The index of the oldest entry kept (`nextIndex` when none is).
  var firstIndex: Int { nextIndex - recorded.count }

  /// How many entries are kept (the start aside).
  var count: Int { recorded.count }

  /// Entry `index` (0: the start), if it is kept.
  func entry(at index: Int) -> RecorderEntry? {
    if index == 0 { return initial }
    let position = index - firstIndex
    guard index > 0, position >= 0, position < recorded.count else { return nil }
    return RecorderEntry(index: index, recorded: recorded[position], timings: timings[index] ?? [])
  }

  /// The entries kept from index `start` on (the start aside), at most `limit`, oldest first.
  func entries(from start: Int, limit: Int = .max) -> [RecorderEntry] {
    let first = max(start, firstIndex)
    let end = limit >= nextIndex - first ? nextIndex : first + limit
    return (first..<max(end, first)).compactMap { entry(at: $0) }
  }

  /// Takes the entries added since the last encoding pass: all of them when every entry is
  /// encoded, else the newest (a size sample).
  mutating func takePending() -> [RecorderEntry] {
    isEncodingSignalled = false
    let last = nextIndex - 1
    guard count > 0, last > lastEncoded else { return [] }
    defer { lastEncoded = last }
    return entries(from: encodesAll ? lastEncoded + 1 : last)
  }

  /// Counts `count` more encoded entries of `bytes` in all in the average size, and drops the
  /// oldest entries beyond the limits.
  mutating func measured(_ count: Int, bytes: Int, capacity: Int, maxBytes: Int) {
    let total = measured + count
    guard total > 0 else { return }
    averageBytes = (averageBytes * Double(measured) + Double(bytes)) / Double(total)
    measured = total
    keep(capacity: capacity, maxBytes: maxBytes)
  }

  /// Adds `recorded` as the next entry, with the timings logged while it ran, and drops the
  /// oldest beyond the limits.
  ///
  /// - Returns: Whether the encoding task should be woken: a batch has gathered (every entry
  ///   when listened to), or a size sample is due.
  mutating func append(
    _ recorded: RecordedValues, capacity: Int, maxBytes: Int, batchSize: Int, sampleEvery: Int
  ) -> Bool {
    let index = nextIndex
    if !pendingTimings.isEmpty, case .ran = recorded.content {
      timings[index] = pendingTimings
      pendingTimings = []
    }
    nextIndex += 1
    self.recorded.append(recorded)
    keep(capacity: capacity, maxBytes: maxBytes)
    // NB: a batch when every entry is written; otherwise a size sample now and then, and at
    // the first entry, so that the byte limit holds from the start.
    let batch = isListened ? 1 : encodesAll ? max(1, min(batchSize, capacity / 2)) : sampleEvery
    guard !isEncodingSignalled, index - lastEncoded >= batch || measured == 0 else {
      return false
    }
    isEncodingSignalled = true
    return true
  }

  /// Drops the oldest entries beyond the limits.
  mutating func keep(capacity: Int, maxBytes: Int) {
    while recorded.count > capacity
      || (recorded.count > 1 && Double(recorded.count) * averageBytes > Double(maxBytes))
    {
      if !timings.isEmpty { timings[firstIndex] = nil }
      recorded.removeFirst()
      evicted += 1
    }
  }
}
