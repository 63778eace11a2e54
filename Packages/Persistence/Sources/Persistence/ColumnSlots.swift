/// The place of each column of a table's rows, found by the name of the property it holds, for
/// a backend's encoder and decoder of rows: by exact name, else case-insensitively (as GRDB
/// finds a column).
///
/// NB: an entity's coding asks for its properties in the same order for every row: the names
/// asked for by the first row are kept in order, and a name that is the one expected next is
/// compared (two words, for a short name) instead of hashed. A row that asks in another order
/// (a property skipped because it is `nil`, a coding that depends on a value) is looked up by
/// hashing from there on: each name is still compared before its place is taken.
public struct ColumnSlots: Sendable {
  @usableFromInline let exact: [String: Int]
  @usableFromInline let lowercased: [String: Int]
  /// The names the first row asked for, in order, with their places.
  @usableFromInline var asked: [(column: String, slot: Int?)] = []
  /// Whether ``asked`` is complete: the first row is done.
  @usableFromInline var learned = false
  /// The place in ``asked`` of the next name expected in this row; past its end once the row
  /// asked for another.
  @usableFromInline var next = 0

  /// - Parameter columns: The names of the columns, in order.
  public init(_ columns: [String]) {
    var exact: [String: Int] = [:]
    var lowercased: [String: Int] = [:]
    // NB: the first column of a name wins, as in GRDB's lookup.
    for index in columns.indices.reversed() {
      exact[columns[index]] = index
      lowercased[columns[index].lowercased()] = index
    }
    self.exact = exact
    self.lowercased = lowercased
  }

  /// Starts a row: its first name is expected to be the first row's first.
  @inlinable
  public mutating func startRow() {
    if next > 0 { learned = true }
    next = 0
  }

  /// The place of the column of `column`, `nil` when the rows have none.
  @inlinable
  public mutating func slot(of column: String) -> Int? {
    if next < asked.count {
      let expected = asked[next]
      next += 1
      if expected.column == column { return expected.slot }
      next = asked.count + 1
    }
    let slot = exact[column] ?? lowercased[column.lowercased()]
    if next == asked.count, !learned {
      asked.append((column, slot))
      next += 1
    }
    return slot
  }
}
