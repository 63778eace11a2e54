import GRDB
import Persistence

import struct Foundation.Data
import struct Foundation.Date
import class Foundation.JSONEncoder
import struct Foundation.URL
import struct Foundation.UUID

/// Encodes entities into the values of their table's columns, in the table's order, the values
/// GRDB's `Codable` record encoding gives them (``ColumnDecoder`` reads them back): numbers,
/// strings and booleans as such, a `Date` as its seconds since 2001, `Data` and `UUID` as blobs,
/// a `URL` as text, a value that encodes as one primitive (a `String`-backed enum) as that
/// primitive, anything else as JSON text, a `nil` as NULL.
///
/// NB: written for the flush, where GRDB's `EncodableRecord.databaseDictionary` cost about
/// 20,000 instructions a row (a case-insensitive ordered dictionary per row, and generic
/// metadata looked up for each value), more than SQLite's own work. One encoder serves a
/// whole flush: the column index is built once, the values buffer reused.
final class ColumnEncoder: Encoder {
  /// Each column's place in ``values``.
  private var slots: ColumnSlots
  /// The names of the columns, by place.
  private let names: [String]
  /// The last entity's values, in column order.
  private(set) var values: [DatabaseValue]
  /// Why the last entity could not be encoded in columns.
  fileprivate var failure: (any Error)?

  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(columns: [String]) {
    names = columns
    slots = ColumnSlots(columns)
    values = Array(repeating: .null, count: columns.count)
  }

  /// Encodes `entity`: its values are then in ``values``.
  ///
  /// - Throws: The entity's encoding error, or an `EncodingError` for an entity that does not
  ///   encode as a keyed container of properties, or holds a number that is not finite.
  func encode<Entity: Encodable>(_ entity: Entity) throws {
    for index in values.indices { values[index] = .null }
    failure = nil
    slots.startRow()
    try entity.encode(to: self)
    if let failure { throw failure }
    for index in values.indices {
      // NB: SQLite stores NaN as NULL and would keep ±infinity, which JSON and PostgreSQL's
      // numeric cannot carry: a row that would not load back, or not leave the file, is
      // refused here instead.
      if case .double(let number) = values[index].storage, !number.isFinite {
        throw EncodingError.invalidValue(
          number,
          .init(
            codingPath: [], debugDescription: "\(names[index]) is \(number): not a finite number"))
      }
    }
  }

  /// NB: by the property's name, not its generic key: called with the key, it ran
  /// unspecialized in the generic container, hundreds of instructions a property.
  fileprivate func set(_ value: DatabaseValue, column: String) {
    // NB: a key with no column (the id, written on its own) is dropped.
    if let slot = slots.slot(of: column) { values[slot] = value }
  }

  fileprivate func fail(_ description: String) {
    if failure == nil {
      failure = EncodingError.invalidValue(
        description, .init(codingPath: [], debugDescription: description))
    }
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(ColumnContainer<Key>(encoder: self))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    fail("an entity encodes as a list, not as properties")
    return JSONValueEncoder().unkeyedContainer()
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    fail("an entity encodes as one value, not as properties")
    return JSONValueEncoder().singleValueContainer()
  }

  /// The column value of a property of a type other than the primitives.
  fileprivate func databaseValue<T: Encodable>(of value: T, column: String) throws
    -> DatabaseValue
  {
    switch value {
    case let date as Date: return date.timeIntervalSinceReferenceDate.databaseValue
    case let data as Data: return data.databaseValue
    case let uuid as UUID: return uuid.databaseValue
    case let url as URL: return url.absoluteString.databaseValue
    case let convertible as any DatabaseValueConvertible: return convertible.databaseValue
    default: break
    }
    let single = JSONValueEncoder()
    try value.encode(to: single)
    if let primitive = single.primitive { return primitive }
    let json = try NestedJSON.encoder().encode(value)
    return String(decoding: json, as: UTF8.self).databaseValue
  }
}

/// The entity's properties, each into its column.
private struct ColumnContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoder: ColumnEncoder
  var codingPath: [any CodingKey] { [] }

  mutating func encodeNil(forKey key: Key) { encoder.set(.null, column: key.stringValue) }
  mutating func encode(_ value: Bool, forKey key: Key) {
    encoder.set(value.databaseValue, column: key.stringValue)
  }
  mutating func encode(_ value: String, forKey key: Key) {
    encoder.set(value.databaseValue, column: key.stringValue)
  }
  mutating func encode(_ value: Double, forKey key: Key) {
    encoder.set(value.databaseValue, column: key.stringValue)
  }
  mutating func encode(_ value: Float, forKey key: Key) {
    encoder.set(value.databaseValue, column: key.stringValue)
  }
  mutating func encode(_ value: Int, forKey key: Key) {
    encoder.set(value.databaseValue, column: key.stringValue)
  }
  mutating func encode(_ value: Int8, forKey key: Key) {
    encoder.set(value.databaseValue, column: key.stringValue)
  }
  mutating func encode(_ value: Int16, forKey key: Key) {
    encoder.set(value.databaseValue, column: key.stringValue)
  }
  mutating func encode(_ value: Int32, forKey key: Key) {
    encoder.set(value.databaseValue, column: key.stringValue)
  }
  mutating func encode(_ value: Int64, forKey key: Key) {
    encoder.set(value.databaseValue, column: key.stringValue)
  }
  mutating func encode(_ value: UInt, forKey key: Key) {
    encoder.set(value.databaseValue, column: key.stringValue)
  }
  mutating func encode(_ value: UInt8, forKey key: Key) {
    encoder.set(value.databaseValue, column: key.stringValue)
  }
  mutating func encode(_ value: UInt16, forKey key: Key) {
    encoder.set(value.databaseValue, column: key.stringValue)
  }
  mutating func encode(_ value: UInt32, forKey key: Key) {
    encoder.set(value.databaseValue, column: key.stringValue)
  }
  mutating func encode(_ value: UInt64, forKey key: Key) {
    encoder.set(value.databaseValue, column: key.stringValue)
  }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    encoder.set(
      try encoder.databaseValue(of: value, column: key.stringValue), column: key.stringValue)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    encoder.fail("\(key.stringValue): a nested container; encode a nested Codable value instead")
    return JSONValueEncoder().container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    encoder.fail("\(key.stringValue): a nested container; encode a nested Codable value instead")
    return JSONValueEncoder().unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    encoder.fail("a super encoder; encode the properties in one container")
    return JSONValueEncoder()
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    encoder.fail("\(key.stringValue): a super encoder; encode a nested Codable value instead")
    return JSONValueEncoder()
  }
}

/// Finds whether a value encodes as one primitive (a `String`-backed enum, a wrapper of one
/// number): ``primitive`` is then its column value; any container makes it JSON.
private final class JSONValueEncoder: Encoder, SingleValueEncodingContainer {
  private(set) var primitive: DatabaseValue?
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(Discarding<Key>())
  }
  func unkeyedContainer() -> any UnkeyedEncodingContainer { Discarding<AnyKey>() }
  func singleValueContainer() -> any SingleValueEncodingContainer { self }

  func encodeNil() { primitive = .null }
  func encode(_ value: Bool) { primitive = value.databaseValue }
  func encode(_ value: String) { primitive = value.databaseValue }
  func encode(_ value: Double) { primitive = value.databaseValue }
  func encode(_ value: Float) { primitive = value.databaseValue }
  func encode(_ value: Int) { primitive = value.databaseValue }
  func encode(_ value: Int8) { primitive = value.databaseValue }
  func encode(_ value: Int16) { primitive = value.databaseValue }
  func encode(_ value: Int32) { primitive = value.databaseValue }
  func encode(_ value: Int64) { primitive = value.databaseValue }
  func encode(_ value: UInt) { primitive = value.databaseValue }
  func encode(_ value: UInt8) { primitive = value.databaseValue }
  func encode(_ value: UInt16) { primitive = value.databaseValue }
  func encode(_ value: UInt32) { primitive = value.databaseValue }
  func encode(_ value: UInt64) { primitive = value.databaseValue }
  func encode<T: Encodable>(_ value: T) throws {
    // NB: a wrapper of a wrapper: its innermost primitive, or JSON when it has none.
    let inner = JSONValueEncoder()
    try value.encode(to: inner)
    primitive = inner.primitive
  }
}

/// A container whose content is not kept: the value is encoded again, as JSON.
private struct Discarding<Key: CodingKey>: KeyedEncodingContainerProtocol, UnkeyedEncodingContainer
{
  var codingPath: [any CodingKey] { [] }
  var count: Int { 0 }

  mutating func encodeNil(forKey key: Key) {}
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) {}
  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> { KeyedEncodingContainer(Discarding<NestedKey>()) }
  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    Discarding<AnyKey>()
  }
  mutating func superEncoder() -> any Encoder { JSONValueEncoder() }
  mutating func superEncoder(forKey key: Key) -> any Encoder { JSONValueEncoder() }

  mutating func encodeNil() {}
  mutating func encode<T: Encodable>(_ value: T) {}
  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  { KeyedEncodingContainer(Discarding<NestedKey>()) }
  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { Discarding<AnyKey>() }
}

private struct AnyKey: CodingKey {
  var stringValue: String
  var intValue: Int?
  init(stringValue: String) { self.stringValue = stringValue }
  init(intValue: Int) { (stringValue, self.intValue) = ("\(intValue)", intValue) }
}

/// The JSON of a nested value's column.
///
/// NB: as Foundation writes it by default (a date in seconds since 2001, exact), not GRDB's
/// default (milliseconds since 1970), for the same reason as the dates of columns.
enum NestedJSON {
  static func encoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.nonConformingFloatEncodingStrategy = .throw
    encoder.outputFormatting = .sortedKeys
    return encoder
  }
}
