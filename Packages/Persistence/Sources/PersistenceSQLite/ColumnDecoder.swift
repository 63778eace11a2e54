public import GRDB
import GRDBSQLite
import Persistence

import struct Foundation.Data
import struct Foundation.Date
import class Foundation.JSONDecoder

/// Decodes entities from their table's rows: the reverse of ``ColumnEncoder``, and what GRDB's
/// `Codable` record decoding reads from the same columns. A property reads its column by name
/// (case-insensitively, as GRDB does): numbers, strings and booleans as such, a `Date` from its
/// seconds since 2001, any `DatabaseValueConvertible` (`Data`, `UUID`, `URL`, …) as GRDB
/// converts it, a value that decodes from one primitive (a `String`-backed enum) from that
/// primitive, anything else from the column's JSON. A missing column or a NULL reads as `nil`
/// for an optional property; for another it is a `DecodingError`.
///
/// NB: written for the load, where GRDB's `FetchableRecord` decoding, generic over the record
/// and run unspecialized for the app's entity, looked up about 25 generic metadata a row and
/// cost three times SQLite's own reading. One decoder serves a whole load: the columns' places
/// are found once, and each row is read by index.
@usableFromInline
final class ColumnDecoder: Decoder {
  /// Each column's place in a row.
  private var slots: ColumnSlots
  /// The statement of the rows decoded, when they are a cursor's: their values are read in
  /// place.
  private let statement: SQLiteStatement?
  /// The row being decoded.
  fileprivate private(set) var row = Row()
  private let json = JSONDecoder()
  /// The places of the columns whose values needed JSON.
  private var jsonColumns: Set<Int> = []

  @usableFromInline var codingPath: [any CodingKey] { [] }
  @usableFromInline var userInfo: [CodingUserInfoKey: Any] { [:] }

  /// - Parameters:
  ///   - columns: The names of the rows' columns, in order.
  ///   - statement: The statement the rows are read from, one at a time, if they are.
  @usableFromInline
  init(columns: [String], statement: SQLiteStatement? = nil) {
    self.statement = statement
    slots = ColumnSlots(columns)
  }

  /// Decodes one row.
  ///
  /// - Throws: A `DecodingError` when a column is missing or holds a value the property's type
  ///   cannot take, or the entity's own decoding error.
  func decode<Entity: Decodable>(_ type: Entity.Type, from row: Row) throws -> Entity {
    self.row = row
    slots.startRow()
    return try Entity(from: self)
  }

  fileprivate func slot(of column: String) -> Int? { slots.slot(of: column) }

  fileprivate func index(of column: String) throws -> Int {
    guard let slot = slot(of: column) else {
      throw DecodingError.keyNotFound(
        ColumnKey(stringValue: column),
        .init(codingPath: [], debugDescription: "no column \(column)"))
    }
    return slot
  }

  /// A primitive from its column: read in place by the statement when the column holds a
  /// value of `storage`, else converted from its `DatabaseValue` as GRDB converts it (a NULL, a
  /// value of another type: an error; a real in an integer property: taken when exact).
  ///
  /// NB: not read in place whatever the column holds (GRDB's record decoding): the statement's
  /// typed accessors convert as SQLite does, so another tool's text in a number column read
  /// as 0. And a method of this class, called with each primitive type: in the generic
  /// container, it ran unspecialized, over a thousand instructions a property.
  fileprivate func read<T: DatabaseValueConvertible & StatementColumnConvertible>(
    _ type: T.Type, column: String, storage: Storage
  ) throws -> T {
    let index = try index(of: column)
    if let statement {
      let stored = sqlite3_column_type(statement, CInt(index))
      if stored == storage.type || (storage == .number && stored == SQLITE_INTEGER),
        let value = T(sqliteStatement: statement, index: CInt(index))
      {
        return value
      }
    }
    let stored: DatabaseValue = row[index]
    return try Self.primitive(type, stored, key: ColumnKey(stringValue: column))
  }

  /// The SQLite values a primitive property is read in place from.
  enum Storage {
    /// An integer (an integer or boolean property).
    case integer
    /// An integer or a real (a floating-point property).
    case number
    /// A text (a string property).
    case text

    var type: CInt {
      switch self {
      case .integer: SQLITE_INTEGER
      case .number: SQLITE_FLOAT
      case .text: SQLITE_TEXT
      }
    }
  }

  /// The value of a property of a type other than the primitives, from the column at `index`.
  fileprivate func value<T: Decodable>(_ type: T.Type, at index: Int, key: some CodingKey)
    throws -> T
  {
    // NB: a column whose values needed JSON reads its next ones as JSON first, without trying
    // (and failing with a thrown error) to decode them from one value. A value that is not
    // JSON of the type (a type that writes some values as one primitive) is read as below,
    // which throws its own error if it cannot be read either: none is lost.
    if jsonColumns.contains(index), let data = jsonContainer(at: index) {
      do {
        return try decodeJSON(type, from: data)
      } catch {}
    }
    let stored: DatabaseValue = row[index]
    do {
      return try Self.value(type, from: stored, key: key)
    } catch is JSONRequired {
      // NB: the type decodes from a container: the column holds its JSON, as text (or a blob).
      guard let data = Data.fromDatabaseValue(stored) else {
        throw DecodingError.valueNotFound(
          type, .init(codingPath: [key], debugDescription: "\(key.stringValue) is \(stored)"))
      }
      jsonColumns.insert(index)
      return try decodeJSON(type, from: data)
    }
  }

  private func decodeJSON<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
    // NB: an empty list, the most common value of a list property, needs no JSON parser (about
    // a microsecond a row).
    if data.count == 2, data.first == UInt8(ascii: "["), data.last == UInt8(ascii: "]"),
      let empty = (type as? any RangeReplaceableCollection.Type)?.init() as? T
    {
      return empty
    }
    return try json.decode(type, from: data)
  }

  /// The bytes of the JSON object or array the column at `index` holds, if it holds one.
  ///
  /// NB: read in place from the statement when the rows are its: made a `DatabaseValue`, the
  /// text was copied into a `String`, then again into `Data`, a tenth of a load of the board.
  private func jsonContainer(at index: Int) -> Data? {
    let data: Data
    if let statement {
      let column = CInt(index)
      let stored = sqlite3_column_type(statement, column)
      // NB: the bytes' pointer first, then their count (SQLite's order for a text).
      guard stored == SQLITE_TEXT || stored == SQLITE_BLOB,
        let bytes = sqlite3_column_blob(statement, column)
      else { return nil }
      data = Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, column)))
    } else {
      guard let stored = Data.fromDatabaseValue(row[index]) else { return nil }
      data = stored
    }
    guard let first = data.first(where: { !Self.isJSONWhitespace($0) }),
      first == UInt8(ascii: "[") || first == UInt8(ascii: "{")
    else { return nil }
    return data
  }

  private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  /// A value from one column's value: a `Date`, a `DatabaseValueConvertible`, or a type that
  /// decodes from one primitive (``JSONRequired`` when it decodes from a container instead).
  fileprivate static func value<T: Decodable>(
    _ type: T.Type, from stored: DatabaseValue, key: some CodingKey
  ) throws -> T {
    if type == Date.self {
      // NB: the form ``ColumnEncoder`` writes, a `Date`'s own value.
      return Date(timeIntervalSinceReferenceDate: try primitive(Double.self, stored, key: key))
        as! T
    }
    if let convertible = type as? any DatabaseValueConvertible.Type {
      guard let value = convertible.fromDatabaseValue(stored) else {
        throw mismatch(type, stored, key: key)
      }
      return value as! T
    }
    return try T(from: SingleColumnDecoder(value: stored, key: key))
  }

  /// A primitive from a column's value, converted as GRDB converts it.
  fileprivate static func primitive<T: DatabaseValueConvertible>(
    _ type: T.Type, _ stored: DatabaseValue, key: some CodingKey
  ) throws -> T {
    guard let value = T.fromDatabaseValue(stored) else { throw mismatch(type, stored, key: key) }
    return value
  }

  private static func mismatch(_ type: Any.Type, _ stored: DatabaseValue, key: some CodingKey)
    -> DecodingError
  {
    let context = DecodingError.Context(
      codingPath: [key], debugDescription: "\(key.stringValue) is \(stored)")
    return stored.isNull ? .valueNotFound(type, context) : .typeMismatch(type, context)
  }

  @usableFromInline
  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(RowContainer<Key>(decoder: self))
  }

  @usableFromInline
  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw DecodingError.typeMismatch(
      [Any].self,
      .init(codingPath: [], debugDescription: "an entity decodes from properties, not a list"))
  }

  @usableFromInline
  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    throw DecodingError.typeMismatch(
      Any.self,
      .init(codingPath: [], debugDescription: "an entity decodes from properties, not one value"))
  }
}

/// The entity's properties, each from its column.
private struct RowContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let decoder: ColumnDecoder
  var codingPath: [any CodingKey] { [] }
  var allKeys: [Key] { decoder.row.columnNames.compactMap { Key(stringValue: $0) } }

  func contains(_ key: Key) -> Bool { decoder.slot(of: key.stringValue) != nil }

  func decodeNil(forKey key: Key) throws -> Bool {
    // NB: a missing column reads as NULL, as in GRDB: an optional property added to the entity
    // loads older rows.
    guard let index = decoder.slot(of: key.stringValue) else { return true }
    return decoder.row.hasNull(atIndex: index)
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
    try decoder.read(type, column: key.stringValue, storage: .integer)
  }
  func decode(_ type: String.Type, forKey key: Key) throws -> String {
    try decoder.read(type, column: key.stringValue, storage: .text)
  }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
    try decoder.read(type, column: key.stringValue, storage: .number)
  }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
    try decoder.read(type, column: key.stringValue, storage: .number)
  }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
    try decoder.read(type, column: key.stringValue, storage: .integer)
  }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
    try decoder.read(type, column: key.stringValue, storage: .integer)
  }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
    try decoder.read(type, column: key.stringValue, storage: .integer)
  }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
    try decoder.read(type, column: key.stringValue, storage: .integer)
  }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
    try decoder.read(type, column: key.stringValue, storage: .integer)
  }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
    try decoder.read(type, column: key.stringValue, storage: .integer)
  }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
    try decoder.read(type, column: key.stringValue, storage: .integer)
  }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
    try decoder.read(type, column: key.stringValue, storage: .integer)
  }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
    try decoder.read(type, column: key.stringValue, storage: .integer)
  }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
    try decoder.read(type, column: key.stringValue, storage: .integer)
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    // NB: a date, the most common property past the primitives, read as one: on the generic
    // path below, it ran unspecialized (a column value made, generic metadata looked up).
    if type == Date.self {
      let seconds = try decoder.read(Double.self, column: key.stringValue, storage: .number)
      return Date(timeIntervalSinceReferenceDate: seconds) as! T
    }
    return try decoder.value(type, at: decoder.index(of: key.stringValue), key: key)
  }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    throw DecodingError.typeMismatch(
      type,
      .init(
        codingPath: [key],
        debugDescription: "\(key.stringValue): a nested container; decode a nested Codable value"))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    throw DecodingError.typeMismatch(
      [Any].self,
      .init(
        codingPath: [key],
        debugDescription: "\(key.stringValue): a nested container; decode a nested Codable value"))
  }

  func superDecoder() throws -> any Decoder { decoder }
  func superDecoder(forKey key: Key) throws -> any Decoder { decoder }
}

/// A column named in an error.
private struct ColumnKey: CodingKey {
  var stringValue: String
  var intValue: Int? { nil }
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}

/// Thrown when a property's type decodes from a container: its column holds JSON.
private struct JSONRequired: Error {}

/// Decodes a property's value from its column's one value, when its type decodes from one
/// primitive (a `String`-backed enum, a wrapper of a number).
private struct SingleColumnDecoder<Key: CodingKey>: Decoder, SingleValueDecodingContainer {
  let value: DatabaseValue
  let key: Key
  var codingPath: [any CodingKey] { [key] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
    -> KeyedDecodingContainer<NestedKey>
  { throw JSONRequired() }
  func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw JSONRequired() }
  func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

  func decodeNil() -> Bool { value.isNull }
  func decode(_ type: Bool.Type) throws -> Bool { try read(type) }
  func decode(_ type: String.Type) throws -> String { try read(type) }
  func decode(_ type: Double.Type) throws -> Double { try read(type) }
  func decode(_ type: Float.Type) throws -> Float { try read(type) }
  func decode(_ type: Int.Type) throws -> Int { try read(type) }
  func decode(_ type: Int8.Type) throws -> Int8 { try read(type) }
  func decode(_ type: Int16.Type) throws -> Int16 { try read(type) }
  func decode(_ type: Int32.Type) throws -> Int32 { try read(type) }
  func decode(_ type: Int64.Type) throws -> Int64 { try read(type) }
  func decode(_ type: UInt.Type) throws -> UInt { try read(type) }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try read(type) }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try read(type) }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try read(type) }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try read(type) }
  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try ColumnDecoder.value(type, from: value, key: key)
  }

  private func read<T: DatabaseValueConvertible>(_ type: T.Type) throws -> T {
    try ColumnDecoder.primitive(type, value, key: key)
  }
}
