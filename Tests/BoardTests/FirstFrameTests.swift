import Foundation
import Logging
import ReduxKit
import TerminalIO
import Testing

@testable import BoardCore

/// The full screen's first frame, drawn from the board's first screenful while the rest loads:
/// it is the frame the loaded board draws, so nothing moves when the load ends.
@MainActor
@Suite(.serialized, .timeLimit(.minutes(1)))
struct FirstFrameTests {
  let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

  /// A board file whose columns' order is not the cards' ids: cards added, moved between
  /// columns, one move undone (back between its old neighbours).
  func makeBoard(at path: String) async throws {
    let database = try BoardDatabase(path: path, logger: logger)
    let session = BoardSession(
      state: try await database.load(), database: database, logger: logger)
    for number in 1...45 { _ = await session.run(.add(column: "Todo", title: "Todo \(number)")) }
    for number in 1...5 { _ = await session.run(.add(column: "Doing", title: "Doing \(number)")) }
    for (card, column) in [(3, "Done"), (40, "Done"), (10, "Doing"), (20, "Done")] {
      _ = await session.run(.move(card: card, column: column))
    }
    _ = await session.run(.undo)
    try await session.shutdown()
    try database.database.close()
  }

  /// The first frame at `size` and the frame of the board once loaded, from one open.
  func frames(of path: String, size: TerminalSize) async throws -> (
    first: ScreenFrame, loaded: ScreenFrame
  ) {
    let database = try BoardDatabase(path: path, logger: logger)
    let preview = try #require(try await database.preview(rows: BoardBody.shownRows(at: size)))
    let first = BoardFrame.frame(
      of: preview, saving: StatusLine.persistence(database.persistence.status), size: size)
    let session = BoardSession(
      state: try await database.load(), database: database, logger: logger)
    let navigation = BoardNavigation(session: session, logger: logger)
    navigation.resized(to: size)
    let loaded = FullScreenMode.frame(of: navigation, session: session, size: size)
    try await session.shutdown()
    try database.database.close()
    return (first, loaded)
  }

  @Test(arguments: [
    TerminalSize(columns: 120, rows: 40), TerminalSize(columns: 90, rows: 12),
    TerminalSize(columns: 40, rows: 10), TerminalSize(columns: 20, rows: 5),
  ])
  func theFirstFrameIsTheFrameOfTheLoadedBoard(size: TerminalSize) async throws {
    let folder = try TemporaryFolder()
    let path = folder.file("board.sqlite").path
    try await makeBoard(at: path)
    let (first, loaded) = try await frames(of: path, size: size)
    #expect(first == loaded)
    if size.rows >= BoardFrame.minimumSize.rows {
      #expect(first.lines.contains { $0.text.contains("Todo (42)") })
    }
  }

  @Test func aBoardWithoutColumnsHasNoFirstFrameBeforeItsLoad() async throws {
    let folder = try TemporaryFolder()
    let database = try BoardDatabase(path: folder.file("board.sqlite").path, logger: logger)
    #expect(try await database.preview(rows: 10) == nil)
    // NB: the load makes the default columns; the next open has a first frame.
    _ = try await database.load()
    #expect(try await database.preview(rows: 10)?.columns.map(\.name) == ["Todo", "Doing", "Done"])
    try await database.persistence.shutdown()
    try database.database.close()
  }
}
