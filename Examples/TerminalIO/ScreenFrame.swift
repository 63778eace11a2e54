/// Everything on the screen at one moment: its lines from the top, and where the cursor shows,
/// if anywhere.
///
/// An app builds a frame from its state each time the state changes and hands it to
/// ``ScreenRenderer``, which works out what to redraw.
public struct ScreenFrame: Hashable, Sendable {
  /// The lines from the top row down. Lines beyond the screen's last row are not drawn; rows
  /// without a line are blank.
  public var lines: [ScreenLine]

  /// Where the cursor shows (a text field being edited), or `nil` to hide it.
  public var cursor: ScreenPosition?

  /// Makes a frame.
  public init(lines: [ScreenLine], cursor: ScreenPosition? = nil) {
    self.lines = lines
    self.cursor = cursor
  }
}

/// A cell on the screen, counted from 0 at the top left.
public struct ScreenPosition: Hashable, Sendable {
  /// The row, from 0 at the top.
  public var row: Int
  /// The column, from 0 at the left.
  public var column: Int

  /// Makes a position.
  public init(row: Int, column: Int) {
    self.row = row
    self.column = column
  }
}
