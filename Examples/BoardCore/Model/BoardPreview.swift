/// The first screenful of a saved board, read without loading it: its columns, how many cards
/// each holds, and the first cards of each. The full screen draws its first frame from it
/// while the board loads; nothing else reads it, so no partial board reaches the store, the
/// undo history or DevTools.
package struct BoardPreview: Sendable {
  /// The columns, in board order.
  let columns: [Column]
  /// How many cards each column holds, by column id.
  let counts: [Int: Int]
  /// The first cards of each column, in board order, by column id.
  let firstCards: [Int: [Card]]

  /// The cards of `column` the first frame shows, and how many it holds.
  func page(of column: Column) -> (cards: [Card], count: Int) {
    (firstCards[column.id] ?? [], counts[column.id] ?? 0)
  }
}
