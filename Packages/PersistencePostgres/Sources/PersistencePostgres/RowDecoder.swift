import Persistence
import PostgresNIO

import struct Foundation.Data
import struct Foundation.Date
import class Foundation.JSONDecoder
import struct Foundation.URL
import struct Foundation.UUID

/// Decodes an entity from a row of its table (what ``RowEncoder`` wrote): each property from
/// the column of its name, through postgres-nio's decoding of the column's type. A `Date` is
/// read from its seconds since 2001, `Data` from base64 text, a nested value from its `jsonb`
/// (Foundation's `JSONDecoder`), a value that wraps one primitive (a `String`-backed enum)
/// from that primitive; the id, held as text, is read as the type the entity asks for.
///
/// NB: in place of each row as JSON (`to_jsonb`) decoded by `JSONDecoder`: the server made a
/// JSON text of every row and the client parsed it again.
struct RowDecoder: Decoder {
  let row: PostgresRandomAccessRow
  /// Where the columns of the read's rows are.
  let layout: RowLayout
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  /// Decodes the entity of `row`, a row of the read `layout` describes.
  static func decode<Entity: Decodable>(
    _ type: Entity.Type, from row: PostgresRandomAccessRow, layout: RowLayout
  ) throws -> Entity {
    layout.startRow()
    return try Entity(from: RowDecoder(row: row, layout: layout))
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(RowContainer<Key>(row: row, layout: layout))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw DecodingError.typeMismatch(
      [Any].self, .init(codingPath: [], debugDescription: "a row is read as properties"))
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    throw DecodingError.typeMismatch(
      Any.self, .init(codingPath: [], debugDescription: "a row is read as properties"))
  }
}

/// Where the columns of one read's rows are, learned as its first row is decoded, and what
/// decodes their nested values: one for all the rows of a read.
final class RowLayout {
  /// Decodes the nested values (`jsonb` columns).
  let json = JSONDecoder()
  private let places: [String: Int]
  private var slots: ColumnSlots
  /// The last key asked for, and its column: a property is asked for up to three times in a
  /// row (`decodeIfPresent`: is it there, is it NULL, its value).
  private var last: (key: String, slot: Int?)?

  /// - Parameter row: Any row of the read.
  init(of row: PostgresRandomAccessRow) {
    let columns = row.map(\.columnName)
    places = Dictionary(columns.enumerated().map { ($1, $0) }) { first, _ in first }
    slots = ColumnSlots(columns)
  }

  /// The place of the column named `name` (a table's own, such as `version`).
  func place(of name: String) -> Int? { places[name] }

  func startRow() {
    slots.startRow()
    last = nil
  }

  /// The place of the column of the property `key`.
  func slot(of key: String) -> Int? {
    if let last, last.key == key { return last.slot }
    let slot = slots.slot(of: key)
    last = (key, slot)
    return slot
  }
}

/// The properties of a row: each the cell of its column.
private struct RowContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let row: PostgresRandomAccessRow
  let layout: RowLayout
  var codingPath: [any CodingKey] { [] }

  var allKeys: [Key] { row.compactMap { Key(stringValue: $0.columnName) } }

  func contains(_ key: Key) -> Bool { layout.slot(of: key.stringValue) != nil }

  private func cell(_ key: Key) throws -> Cell {
    guard let slot = layout.slot(of: key.stringValue) else {
      throw DecodingError.keyNotFound(
        key, .init(codingPath: [key], debugDescription: "the row has no column \(key.stringValue)"))
    }
    return Cell(cell: row[slot], key: key, json: layout.json)
  }

  func decodeNil(forKey key: Key) throws -> Bool { try cell(key).isNull }
  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try cell(key).bool() }
  func decode(_ type: String.Type, forKey key: Key) throws -> String { try cell(key).string() }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try cell(key).double() }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
    Float(try cell(key).double())
  }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try cell(key).integer() }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try cell(key).integer() }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try cell(key).integer() }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try cell(key).integer() }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try cell(key).integer() }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try cell(key).integer() }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try cell(key).integer() }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try cell(key).integer() }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try cell(key).integer() }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try cell(key).integer() }
  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try cell(key).value(T.self)
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    throw DecodingError.typeMismatch(
      type, .init(codingPath: [key], debugDescription: "a column holds one value"))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    throw DecodingError.typeMismatch(
      [Any].self, .init(codingPath: [key], debugDescription: "a column holds one value"))
  }

  func superDecoder() throws -> any Decoder {
    throw DecodingError.typeMismatch(
      Any.self, .init(codingPath: [], debugDescription: "a row has no super decoder"))
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    throw DecodingError.typeMismatch(
      Any.self, .init(codingPath: [key], debugDescription: "a row has no super decoder"))
  }
}

/// One column's value, read as the type a property asks for; also the decoder of a value that
/// wraps one primitive (its single-value container).
private struct Cell: Decoder, SingleValueDecodingContainer {
  let cell: PostgresCell
  let key: any CodingKey
  let json: JSONDecoder

  var codingPath: [any CodingKey] { [key] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }
  var isNull: Bool { cell.bytes == nil }

  private func mismatch(_ type: Any.Type, _ underlying: (any Error)? = nil) -> DecodingError {
    DecodingError.typeMismatch(
      type,
      .init(
        codingPath: [key],
        debugDescription:
          "column \(key.stringValue) holds \(cell.dataType) \(isNull ? "NULL" : "")",
        underlyingError: underlying))
  }

  private func decoded<T: PostgresDecodable>(_ type: T.Type) throws -> T {
    guard !isNull else {
      throw DecodingError.valueNotFound(
        type, .init(codingPath: [key], debugDescription: "column \(key.stringValue) is NULL"))
    }
    do {
      return try cell.decode(T.self)
    } catch {
      throw mismatch(type, error)
    }
  }

  func bool() throws -> Bool { try decoded(Bool.self) }
  func string() throws -> String { try decoded(String.self) }
  func double() throws -> Double { try decoded(Double.self) }

  /// An integer column's value, or the text of the id.
  func integer<T: FixedWidthInteger>() throws -> T {
    let value: T? =
      switch cell.dataType {
      case .text, .varchar: T(try string())
      default: T(exactly: try decoded(Int64.self))
      }
    guard let value else { throw mismatch(T.self) }
    return value
  }

  func value<T: Decodable>(_ type: T.Type) throws -> T {
    switch type {
    case is Date.Type:
      return Date(timeIntervalSinceReferenceDate: try double()) as! T
    case is Data.Type:
      guard let data = Data(base64Encoded: try string()) else { throw mismatch(type) }
      return data as! T
    case is UUID.Type:
      if cell.dataType == .uuid { return try decoded(UUID.self) as! T }
      guard let uuid = UUID(uuidString: try string()) else { throw mismatch(type) }
      return uuid as! T
    case is URL.Type:
      guard let url = URL(string: try string()) else { throw mismatch(type) }
      return url as! T
    default:
      break
    }
    guard cell.dataType == .jsonb else { return try T(from: self) }
    let text = try string()
    do {
      return try json.decode(T.self, from: Data(text.utf8))
    } catch {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: [key],
          debugDescription: "column \(key.stringValue) holds JSON that is no \(T.self)",
          underlyingError: error))
    }
  }

  // MARK: Decoder, for a value that wraps one primitive

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    throw mismatch([String: Any].self)
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw mismatch([Any].self) }
  func singleValueContainer() -> any SingleValueDecodingContainer { self }

  // MARK: SingleValueDecodingContainer

  func decodeNil() -> Bool { isNull }
  func decode(_ type: Bool.Type) throws -> Bool { try bool() }
  func decode(_ type: String.Type) throws -> String { try string() }
  func decode(_ type: Double.Type) throws -> Double { try double() }
  func decode(_ type: Float.Type) throws -> Float { Float(try double()) }
  func decode(_ type: Int.Type) throws -> Int { try integer() }
  func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
  func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
  func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
  func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
  func decode(_ type: UInt.Type) throws -> UInt { try integer() }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }
  func decode<T: Decodable>(_ type: T.Type) throws -> T { try value(T.self) }
}
