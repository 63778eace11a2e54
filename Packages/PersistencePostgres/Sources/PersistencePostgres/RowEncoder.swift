import Persistence

import struct Foundation.Data
import struct Foundation.Date
import class Foundation.JSONDecoder
import class Foundation.JSONEncoder
import struct Foundation.URL
import struct Foundation.UUID

/// Encodes a batch's entities into the values of their columns (``ColumnValue``), row after
/// row, each as its column's SQL type holds it, the way a load reads it back (``RowDecoder``,
/// and `to_jsonb` for a conflict's row): a `Date` as its seconds since 2001, `Data` as base64 text, a `URL` as text,
/// a value that encodes as one primitive (a `String`-backed enum) as that primitive, a nested
/// value as its JSON, a `nil` or a property left out as NULL.
///
/// NB: in place of each entity's JSON, spread by the server (`jsonb_populate_record`): that
/// cost the client a JSON text a row and the server as much again as the insert itself.
final class RowEncoder: Encoder {
  private let names: [String]
  private let kinds: [EntitySchema.Kind]
  private var slots: ColumnSlots
  /// The values of the rows, row after row: a row that did not encode holds NULLs.
  private(set) var values: [ColumnValue]
  /// The place in ``values`` of the row being encoded.
  private var row = 0
  /// The place in ``values`` of the next row.
  private var next = 0
  /// Why the row being encoded cannot be stored.
  private var failure: (any Error)?
  private let json: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.nonConformingFloatEncodingStrategy = .throw
    return encoder
  }()

  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  /// - Parameter columns: The entity's columns, in the table's order.
  init(columns: [EntitySchema.Property], rows: Int) {
    names = columns.map(\.name)
    kinds = columns.map(\.kind)
    slots = ColumnSlots(names)
    // NB: every row's values made at once, NULL: appended row by row, they cost a tenth of
    // the encoding.
    values = Array(repeating: .null, count: rows * columns.count)
  }

  /// Encodes `entity` as the next row.
  ///
  /// - Returns: The place of its first value in ``values``, or why it cannot be stored (an
  ///   encoding error, a number that is not finite, a value its column's type cannot hold).
  func encode<Entity: Encodable>(_ entity: Entity) -> Result<Int, any Error> {
    row = next
    next += names.count
    if values.count < next {
      values.append(contentsOf: repeatElement(.null, count: next - values.count))
    }
    slots.startRow()
    failure = nil
    do {
      try entity.encode(to: self)
    } catch {
      failure = failure ?? error
    }
    guard let failure else { return .success(row) }
    for place in row..<next { values[place] = .null }
    return .failure(failure)
  }

  /// The column of `key`, `nil` for a key with none (the id, written on its own).
  fileprivate func slot(of key: String) -> Int? { slots.slot(of: key) }

  fileprivate func set(_ value: ColumnValue, forKey key: String) {
    guard let slot = slot(of: key) else { return }
    store(value, at: slot)
  }

  private func store(_ value: ColumnValue, at slot: Int) {
    switch (value, kinds[slot]) {
    case (.null, _), (.integer, .integer), (.boolean, .boolean), (.text, .text),
      (.text, .blob), (.uuid, .uuid), (.json, .json):
      values[row + slot] = value
    case (.real(let number), .real), (.real(let number), .date):
      guard number.isFinite else {
        return fail("\(names[slot]) is \(number): not a finite number")
      }
      values[row + slot] = value
    case (.integer(let integer), .real), (.integer(let integer), .date):
      values[row + slot] = .real(Double(integer))
    default:
      fail("\(names[slot]) encodes as \(value), which its \(kinds[slot]) column cannot hold")
    }
  }

  fileprivate func fail(_ description: String) {
    if failure == nil {
      failure = EncodingError.invalidValue(
        description, .init(codingPath: [], debugDescription: description))
    }
  }

  fileprivate func set(_ value: UInt64, forKey key: String) {
    guard let integer = Int64(exactly: value) else {
      return fail("\(key) is \(value): larger than a bigint holds")
    }
    set(.integer(integer), forKey: key)
  }

  /// Stores a value of a type other than the primitives in its column.
  fileprivate func set<T: Encodable>(_ value: T, forKey key: String) throws {
    guard let slot = slot(of: key) else { return }
    let kind = kinds[slot]
    switch value {
    case _ where kind == .json: store(try jsonValue(of: value), at: slot)
    case let date as Date: store(.real(date.timeIntervalSinceReferenceDate), at: slot)
    case let data as Data: store(.text(data.base64EncodedString()), at: slot)
    case let uuid as UUID: store(.uuid(uuid), at: slot)
    case let url as URL: store(.text(url.absoluteString), at: slot)
    case let raw as any RawRepresentable:
      switch raw.rawValue as Any {
      case let text as String: store(.text(text), at: slot)
      case let integer as Int: store(.integer(Int64(integer)), at: slot)
      default: store(try primitive(of: value, as: kind), at: slot)
      }
    default: store(try primitive(of: value, as: kind), at: slot)
    }
  }

  private func jsonValue<T: Encodable>(of value: T) throws -> ColumnValue {
    let text = String(decoding: try json.encode(value), as: UTF8.self)
    return text == "null" ? .null : .json(text)
  }

  /// The value of a type that encodes as one primitive (a wrapper, an optional), read back
  /// from its JSON as its column's type holds it.
  private func primitive<T: Encodable>(of value: T, as kind: EntitySchema.Kind) throws
    -> ColumnValue
  {
    let data = try json.encode(value)
    if data.elementsEqual("null".utf8) { return .null }
    let decoder = JSONDecoder()
    switch kind {
    case .integer: return .integer(try decoder.decode(Int64.self, from: data))
    case .boolean: return .boolean(try decoder.decode(Bool.self, from: data))
    case .real, .date: return .real(try decoder.decode(Double.self, from: data))
    case .text, .blob: return .text(try decoder.decode(String.self, from: data))
    case .uuid: return .uuid(try decoder.decode(UUID.self, from: data))
    case .json: return try jsonValue(of: value)
    }
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(RowContainer<Key>(encoder: self))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    fail("an entity encodes as a list, not as properties")
    return Refused()
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    fail("an entity encodes as one value, not as properties")
    return Refused()
  }
}

/// The entity's properties, each into its column.
private struct RowContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoder: RowEncoder
  var codingPath: [any CodingKey] { [] }

  mutating func encodeNil(forKey key: Key) { encoder.set(.null, forKey: key.stringValue) }
  mutating func encode(_ value: Bool, forKey key: Key) {
    encoder.set(.boolean(value), forKey: key.stringValue)
  }
  mutating func encode(_ value: String, forKey key: Key) {
    encoder.set(.text(value), forKey: key.stringValue)
  }
  mutating func encode(_ value: Double, forKey key: Key) {
    encoder.set(.real(value), forKey: key.stringValue)
  }
  mutating func encode(_ value: Float, forKey key: Key) {
    encoder.set(.real(Double(value)), forKey: key.stringValue)
  }
  mutating func encode(_ value: Int, forKey key: Key) {
    encoder.set(.integer(Int64(value)), forKey: key.stringValue)
  }
  mutating func encode(_ value: Int8, forKey key: Key) {
    encoder.set(.integer(Int64(value)), forKey: key.stringValue)
  }
  mutating func encode(_ value: Int16, forKey key: Key) {
    encoder.set(.integer(Int64(value)), forKey: key.stringValue)
  }
  mutating func encode(_ value: Int32, forKey key: Key) {
    encoder.set(.integer(Int64(value)), forKey: key.stringValue)
  }
  mutating func encode(_ value: Int64, forKey key: Key) {
    encoder.set(.integer(value), forKey: key.stringValue)
  }
  mutating func encode(_ value: UInt, forKey key: Key) {
    encoder.set(UInt64(value), forKey: key.stringValue)
  }
  mutating func encode(_ value: UInt8, forKey key: Key) {
    encoder.set(.integer(Int64(value)), forKey: key.stringValue)
  }
  mutating func encode(_ value: UInt16, forKey key: Key) {
    encoder.set(.integer(Int64(value)), forKey: key.stringValue)
  }
  mutating func encode(_ value: UInt32, forKey key: Key) {
    encoder.set(.integer(Int64(value)), forKey: key.stringValue)
  }
  mutating func encode(_ value: UInt64, forKey key: Key) {
    encoder.set(value, forKey: key.stringValue)
  }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try encoder.set(value, forKey: key.stringValue)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    encoder.fail("\(key.stringValue): a nested container; encode a nested Codable value instead")
    return KeyedEncodingContainer(
      RowContainer<NestedKey>(encoder: RowEncoder(columns: [], rows: 0)))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    encoder.fail("\(key.stringValue): a nested container; encode a nested Codable value instead")
    return Refused()
  }

  mutating func superEncoder() -> any Encoder {
    encoder.fail("a super encoder; encode the properties in one container")
    return RowEncoder(columns: [], rows: 0)
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    encoder.fail("\(key.stringValue): a super encoder; encode a nested Codable value instead")
    return RowEncoder(columns: [], rows: 0)
  }
}

/// The container of an entity that does not encode as properties: what it writes is dropped
/// (the row has failed already).
private struct Refused: UnkeyedEncodingContainer, SingleValueEncodingContainer {
  var codingPath: [any CodingKey] { [] }
  var count: Int { 0 }

  mutating func encodeNil() {}
  mutating func encode(_ value: Bool) {}
  mutating func encode(_ value: String) {}
  mutating func encode(_ value: Double) {}
  mutating func encode(_ value: Float) {}
  mutating func encode(_ value: Int) {}
  mutating func encode(_ value: Int8) {}
  mutating func encode(_ value: Int16) {}
  mutating func encode(_ value: Int32) {}
  mutating func encode(_ value: Int64) {}
  mutating func encode(_ value: UInt) {}
  mutating func encode(_ value: UInt8) {}
  mutating func encode(_ value: UInt16) {}
  mutating func encode(_ value: UInt32) {}
  mutating func encode(_ value: UInt64) {}
  mutating func encode<T: Encodable>(_ value: T) {}
  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    KeyedEncodingContainer(RowContainer<NestedKey>(encoder: RowEncoder(columns: [], rows: 0)))
  }
  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { Refused() }
  mutating func superEncoder() -> any Encoder { RowEncoder(columns: [], rows: 0) }
}
