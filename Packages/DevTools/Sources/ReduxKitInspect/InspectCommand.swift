import ArgumentParser
import DevTools
import Foundation

/// `reduxkit-inspect SESSION.jsonl`: lists, filters, shows and diffs a recorded session.
@main
struct InspectCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reduxkit-inspect",
    abstract: "Lists, filters and diffs a session that ReduxKit's DevTools recorded.",
    discussion: """
      Without options, one line per record: its number, time, source, name and outcome.
        reduxkit-inspect board.jsonl --filter move       records whose name, source or outcome \
      contains "move"
        reduxkit-inspect board.jsonl --diff 12           what record 12 changed in the state
        reduxkit-inspect board.jsonl --show 12           the state after record 12, and its action
      """)

  @Argument(help: "The session file (JSON lines).")
  var session: String

  @Option(help: "Only the records whose name, source, outcome or detail contain this text.")
  var filter: String?

  @Option(help: "What this record changed in the state.")
  var diff: Int?

  @Option(help: "The state after this record, and the action as dispatched.")
  var show: Int?

  func run() throws {
    // NB: a bad file is an error with its line number (exit 1), not a usage error.
    let session = try DevToolsSession(contentsOf: URL(fileURLWithPath: self.session))
    if let show {
      let record = try record(show, in: session)
      print(Self.line(record))
      print("action: \(record.payload.map(\.description) ?? "none")")
      print("state:  \(record.state.map(\.description) ?? "not recorded")")
      return
    }
    if let diff {
      let record = try record(diff, in: session)
      print(Self.line(record))
      guard let after = record.state else {
        return print("no state was recorded after it (\(record.outcome.rawValue))")
      }
      guard let before = Self.state(before: record, in: session) else {
        return print("no earlier state is recorded to compare with")
      }
      let changes = StateDiff(from: before, to: after).changes
      if changes.isEmpty { print("the state did not change") }
      for change in changes { print("  \(change)") }
      return
    }
    let needle = filter?.lowercased()
    var shown = 0
    for record in session.records {
      let haystack = [record.name, record.source, record.outcome.rawValue, record.detail ?? ""]
        .joined(separator: " ").lowercased()
      guard needle.map({ haystack.contains($0) }) ?? true else { continue }
      print(Self.line(record))
      shown += 1
    }
    print(
      "\(shown) of \(session.records.count) record(s), app \(session.header.app)"
        + (session.isTruncated ? "; the last line was cut short (the app stopped)" : ""))
  }

  private func record(_ index: Int, in session: DevToolsSession) throws -> DevToolsRecord {
    guard let record = session.record(index) else {
      let range = session.records.map(\.index)
      throw InspectError(
        "no record #\(index) in the session (it holds #\(range.min() ?? 0)…#\(range.max() ?? 0))")
    }
    return record
  }

  /// The state recorded before `record`: the last one of an earlier record.
  static func state(before record: DevToolsRecord, in session: DevToolsSession) -> JSONValue? {
    session.records.last { $0.index < record.index && $0.state != nil }?.state
  }

  static func line(_ record: DevToolsRecord) -> String {
    let time = String(format: "%9.3fs", record.time)
    let duration = record.duration.map { String(format: " %.1fµs", $0 * 1_000_000) } ?? ""
    let detail = record.detail.map { " (\($0))" } ?? ""
    return "#\(record.index)".padding(toLength: 6, withPad: " ", startingAt: 0)
      + " \(time)  \(record.source.padding(toLength: 18, withPad: " ", startingAt: 0)) "
      + "\(record.name)  \(record.outcome.rawValue)\(detail)\(duration)"
  }
}

/// A request the session cannot answer.
struct InspectError: Error, CustomStringConvertible {
  let description: String

  init(_ description: String) {
    self.description = description
  }
}
