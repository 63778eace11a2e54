/// One key press, decoded from the bytes a terminal sends in raw mode.
///
/// ``KeyDecoder`` makes these from bytes; ``LineReader/keys`` delivers them as they are typed.
/// A terminal sends the same bytes for several chords, so some keys cannot be told apart:
/// Ctrl-H and Backspace both arrive as ``backspace``, Ctrl-I as ``tab``, Ctrl-M and Ctrl-J as
/// ``enter``. Modifiers on arrows and editing keys (`ESC [ 1 ; 5 A` for Ctrl-Up) are dropped: the
/// key arrives as the plain ``up``.
///
/// In raw mode the terminal no longer turns Ctrl-C into `SIGINT` nor Ctrl-D into the end of the
/// input: they arrive as `.control("c")` and `.control("d")`, and the app decides what they mean.
public enum Key: Hashable, Sendable {
  /// A printable character: one Unicode scalar, decoded from one to four UTF-8 bytes.
  ///
  /// A combining mark typed after a letter arrives as its own key. Bytes that are not valid
  /// UTF-8 arrive as U+FFFD REPLACEMENT CHARACTER.
  case character(Character)
  /// Return or Enter (CR, or LF).
  case enter
  /// Escape on its own, told apart from the start of a sequence as ``KeyDecoder`` explains.
  case escape
  /// Backspace (DEL, 0x7F) or Ctrl-H (BS, 0x08).
  case backspace
  /// Tab, or Ctrl-I.
  case tab
  /// Shift-Tab (`ESC [ Z`).
  case backTab
  /// The up arrow (`ESC [ A` or `ESC O A`).
  case up
  /// The down arrow (`ESC [ B` or `ESC O B`).
  case down
  /// The right arrow (`ESC [ C` or `ESC O C`).
  case right
  /// The left arrow (`ESC [ D` or `ESC O D`).
  case left
  /// Home (`ESC [ H`, `ESC O H`, `ESC [ 1 ~` or `ESC [ 7 ~`).
  case home
  /// End (`ESC [ F`, `ESC O F`, `ESC [ 4 ~` or `ESC [ 8 ~`).
  case end
  /// Page Up (`ESC [ 5 ~`).
  case pageUp
  /// Page Down (`ESC [ 6 ~`).
  case pageDown
  /// Insert (`ESC [ 2 ~`).
  case insert
  /// Forward delete (`ESC [ 3 ~`).
  case delete
  /// A function key, F1 to F12 (`ESC O P` to `ESC O S`, `ESC [ 1 5 ~` and up).
  case function(Int)
  /// A control chord, named by its lowercase letter: Ctrl-C is `.control("c")`.
  ///
  /// Covers Ctrl-A to Ctrl-Z except the four that have keys of their own (``backspace``,
  /// ``tab``, and ``enter`` twice), and Ctrl-@, Ctrl-\\, Ctrl-], Ctrl-^ and Ctrl-_ by their
  /// symbol.
  case control(Character)
  /// A printable ASCII character typed with Alt (or Meta): the terminal sends ESC and then the
  /// character, both before ``LineReader``'s escape timeout.
  case alt(Character)
  /// Text pasted while bracketed paste is on (``ControlSequence/enableBracketedPaste``): every
  /// character between the terminal's `ESC [ 200 ~` and `ESC [ 201 ~`, line ends and escapes
  /// included, as one key, so that a paste of any length is one insertion rather than a key per
  /// character (and a pasted line end does not press Enter).
  case paste(String)
  /// A complete escape sequence this decoder does not know, with all its bytes (ESC included),
  /// so an app can log it or match it itself.
  case unknown([UInt8])
}

extension Key {
  /// Ctrl-C, which raw mode delivers as a key instead of `SIGINT`.
  public static let interrupt = Key.control("c")
  /// Ctrl-D, which raw mode delivers as a key instead of the end of the input.
  public static let endOfInput = Key.control("d")
}
