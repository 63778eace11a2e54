import Observation
import ReduxKit
package import TerminalIO

/// The full-screen board: keys go to the top screen, and a frame is drawn whenever state the
/// last frame read changes (Observation): a key, a search result arriving, a flush finishing.
/// Waiting for a key suspends; it never blocks the main actor, where the store and the
/// persistence timers run.
@MainActor
package enum FullScreenMode {
  private enum Input: Sendable {
    case event(TerminalEvent)
    /// State read by frame number `frame` changed.
    case redraw(frame: Int)
  }

  /// Runs until `q`, Ctrl-C, or the end of `events`.
  ///
  /// - Parameters:
  ///   - events: Keys and resizes.
  ///   - size: The terminal's size at start.
  ///   - drawn: The renderer of a frame already on the screen (the board's first, drawn while
  ///     it loaded): the first frame redraws only what differs from it.
  ///   - write: Where the frames' bytes go.
  /// - Returns: How many frames were drawn.
  @discardableResult
  static func run<Events: AsyncSequence<TerminalEvent, Never> & Sendable>(
    _ navigation: BoardNavigation, session: BoardSession, events: Events, size: TerminalSize,
    drawn: ScreenRenderer? = nil, write: (String) -> Void
  ) async -> Int {
    let (inputs, continuation) = AsyncStream.makeStream(of: Input.self)
    let forward = Task {
      for await event in events { continuation.yield(.event(event)) }
      continuation.finish()
    }
    defer { forward.cancel() }
    var renderer = drawn ?? ScreenRenderer(size: size)
    renderer.size = size
    navigation.resized(to: size)
    var frames = 0
    func draw() {
      frames += 1
      let frame = withObservationTracking {
        Self.frame(of: navigation, session: session, size: renderer.size)
      } onChange: { [frames] in
        continuation.yield(.redraw(frame: frames))
      }
      let output = renderer.render(frame)
      if !output.isEmpty { write(output) }
    }
    draw()
    for await input in inputs {
      switch input {
      case .redraw(let frame) where frame != frames:
        // NB: a frame drawn since (after a key) read the changed state already. Its tracking
        // fired late, when a change came; redrawing for it would add a frame per key for the
        // rest of the session.
        continue
      case .redraw:
        break
      case .event(.resize(let size)):
        renderer.size = size
        navigation.resized(to: size)
      case .event(.key(.interrupt)), .event(.key(.endOfInput)):
        return frames
      case .event(.key(let key)):
        await navigation.handle(key)
        if navigation.wantsToQuit { return frames }
      }
      draw()
    }
    return frames
  }

  /// The board's first frame at `size`, drawn before the board loads from its first screenful
  /// (``BoardDatabase/preview(rows:)``): the frame ``frame(of:session:size:)`` draws once it
  /// has loaded. `nil` for a board with no columns yet.
  package static func firstFrame(of database: BoardDatabase, size: TerminalSize) async throws
    -> ScreenFrame?
  {
    guard let preview = try await database.preview(rows: BoardBody.shownRows(at: size)) else {
      return nil
    }
    return BoardFrame.frame(
      of: preview, saving: StatusLine.persistence(database.persistence.status), size: size)
  }

  /// The frame `run` draws: the top screen of `navigation`, at `size`.
  package static func frame(
    of navigation: BoardNavigation, session: BoardSession, size: TerminalSize
  ) -> ScreenFrame {
    BoardFrame.frame(
      of: navigation.top, root: navigation.root.state, session: session, size: size)
  }
}
