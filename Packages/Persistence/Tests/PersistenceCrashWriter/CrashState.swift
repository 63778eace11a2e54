import EntityTracking

/// A leaf entity: notes point at tags, so tags are written first.
struct Tag: Codable, Identifiable, Equatable, Sendable {
  let id: Int
  var name: String
}

struct Note: Codable, Identifiable, Equatable, Sendable {
  let id: String
  var title: String
  var body: String
  var tagID: Int
  var revision: Int
}

/// The writer's state: two entity stores persisted by two writers.
struct CrashState {
  var tags = EntityStore<Tag>()
  var notes = EntityStore<Note>()

  /// A digest of the content, independent of order, so that the state in memory and the
  /// state loaded back (first-written order) compare equal.
  var digest: String {
    var lines = tags.map { "t\($0.id)|\($0.name)" }
    lines += notes.map { "n\($0.id)|\($0.title)|\($0.body)|\($0.tagID)|\($0.revision)" }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
    for byte in lines.sorted().joined(separator: "\n").utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    return "\(tags.count).\(notes.count).\(String(hash, radix: 16))"
  }

  /// Applies one scripted step: a few changes, or now and then a large batch, so that some
  /// flushes take long enough to be killed halfway.
  mutating func step(_ random: inout SplitMix64) {
    let changes =
      random.next(below: 10) == 0 ? 500 + random.next(below: 1_500) : 1 + random.next(below: 20)
    apply(changes, &random)
  }

  /// Applies a batch a flush committed (the crash writer's shadow of the database).
  mutating func apply(tags writes: [Tag], deletions: [Tag.ID]) {
    tags.upsert(contentsOf: writes)
    tags.remove(ids: deletions)
  }

  /// Applies a batch a flush committed (the crash writer's shadow of the database).
  mutating func apply(notes writes: [Note], deletions: [Note.ID]) {
    notes.upsert(contentsOf: writes)
    notes.remove(ids: deletions)
  }

  /// One step of the two-process test's writer `name`: a few writes and deletions of its own
  /// notes (`<name>-<k>`), which the other writer never touches.
  mutating func writerStep(named name: String, _ random: inout SplitMix64) {
    for _ in 0..<(1 + random.next(below: 5)) {
      let id = "\(name)-\(random.next(below: 200))"
      if random.next(below: 5) == 0 {
        notes.remove(id)
      } else {
        let revision = (notes[id]?.revision ?? 0) + 1
        notes.upsert(
          Note(id: id, title: "\(id) r\(revision)", body: "", tagID: 0, revision: revision))
      }
    }
  }

  /// The notes of the two-process test's writer `name`.
  func noteCount(named name: String) -> Int {
    notes.ids.filter { $0.hasPrefix("\(name)-") }.count
  }

  /// Renames tag 0 (inserting it if needed): a change every round is sure to make, so that
  /// every round has something to flush.
  mutating func touch() {
    let revision = (tags[0].flatMap { Int($0.name.dropFirst("touch ".count)) } ?? 0) + 1
    tags.upsert(Tag(id: 0, name: "touch \(revision)"))
  }

  /// Applies a few changes: a step of a steady stream.
  mutating func smallStep(_ random: inout SplitMix64) {
    apply(1 + random.next(below: 5), &random)
  }

  private mutating func apply(_ changes: Int, _ random: inout SplitMix64) {
    for _ in 0..<changes {
      switch random.next(below: 10) {
      case 0:
        let id = (tags.ids.max() ?? 0) + 1
        tags.upsert(Tag(id: id, name: "tag \(id)"))
      case 1, 2, 3, 4:
        let id = "n\(random.next(below: 4_000))"
        let tagID = tags.isEmpty ? 0 : tags.ids[random.next(below: tags.count)]
        let revision = (notes[id]?.revision ?? 0) + 1
        notes.upsert(
          Note(
            id: id, title: "note \(id) r\(revision)",
            body: String(repeating: "x", count: random.next(below: 400)),
            tagID: tagID, revision: revision))
      case 5, 6:
        guard !notes.isEmpty else { continue }
        notes.modify(notes.ids[random.next(below: notes.count)]) { note in
          note.revision += 1
          note.title = "edited r\(note.revision)"
        }
      case 7:
        guard !tags.isEmpty else { continue }
        tags.modify(tags.ids[random.next(below: tags.count)]) { $0.name += "'" }
      case 8:
        guard !notes.isEmpty else { continue }
        notes.remove(notes.ids[random.next(below: notes.count)])
      default:
        guard !tags.isEmpty, random.next(below: 4) == 0 else { continue }
        tags.remove(tags.ids[random.next(below: tags.count)])
      }
    }
  }
}

/// A small seeded generator, so that a run can be replayed from its seed.
struct SplitMix64 {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9e37_79b9_7f4a_7c15
    var z = state
    z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
    z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
    return z ^ (z >> 31)
  }

  mutating func next(below bound: Int) -> Int {
    Int(next() % UInt64(bound))
  }
}
