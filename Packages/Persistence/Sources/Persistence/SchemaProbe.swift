import struct Foundation.Data
import struct Foundation.Date
import struct Foundation.URL
import struct Foundation.UUID

/// What ``EntitySchema/init(of:)`` records while an entity decodes from made-up values: the
/// top-level properties, in the order they were read.
final class SchemaProbe {
  private(set) var properties: [EntitySchema.Property] = []

  func record(_ name: String, _ kind: EntitySchema.Kind, isOptional: Bool) {
    guard !properties.contains(where: { $0.name == name }) else { return }
    properties.append(.init(name: name, kind: kind, isOptional: isOptional))
  }
}

/// The kind of a nested value, found from the first thing its `init(from:)` asks for: a keyed
/// or unkeyed container (stored as JSON), or one value of a primitive type.
final class KindFound {
  private(set) var kind: EntitySchema.Kind?

  func found(_ kind: EntitySchema.Kind) {
    if self.kind == nil { self.kind = kind }
  }

  /// Records `kind` and returns the made-up `value`.
  func found<T>(_ kind: EntitySchema.Kind, _ value: T) -> T {
    found(kind)
    return value
  }
}

/// A value of `type` made up for the probe, and the kind it is stored as; `nil` when nothing
/// can be made up (the kind is still found when its decoding asked for something first).
func sample<T: Decodable>(_ type: T.Type) -> (value: T?, kind: EntitySchema.Kind) {
  // NB: the types a backend stores as one value of their own, whatever their Codable form
  // (a Date's is a number, a UUID's a string: the backends store a date and a UUID as such).
  if let value = Date(timeIntervalSinceReferenceDate: 0) as? T { return (value, .date) }
  if let value = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) as? T {
    return (value, .uuid)
  }
  if let value = Data() as? T { return (value, .blob) }
  if let value = URL(string: "https://example.com") as? T { return (value, .text) }
  let found = KindFound()
  let decoded: T?
  do {
    decoded = try T(from: SchemaProbeDecoder(found: found))
  } catch {
    // NB: no made-up value satisfies it (an enum's raw value, a validating type): a sample
    // comes from the type below, or the caller reports the property as unsampled.
    decoded = nil
  }
  let kind = found.kind ?? .json
  if let decoded { return (decoded, kind) }
  if let sampled = T.self as? any SchemaSample.Type, let value = sampled.schemaSample as? T {
    return (value, kind)
  }
  if let cases = T.self as? any CaseIterable.Type, let value = firstCase(of: cases) as? T {
    return (value, kind)
  }
  return (nil, kind)
}

private func firstCase<C: CaseIterable>(of type: C.Type) -> Any? { C.allCases.first }

/// The decoder the probe's entity and its nested values decode from: every key is there,
/// every number is 0, every string empty, every collection empty.
struct SchemaProbeDecoder: Decoder {
  /// Set for the entity itself: its keyed container records each property.
  var probe: SchemaProbe?
  /// Set for a nested value: records the kind of its first request.
  var found: KindFound?

  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(probe: SchemaProbe) { self.probe = probe }
  init(found: KindFound) { self.found = found }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    found?.found(.json)
    return KeyedDecodingContainer(ProbeContainer<Key>(probe: probe))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard probe == nil else {
      throw EntitySchemaError.undecodable(type: "entity", underlying: "it decodes as a list")
    }
    found?.found(.json)
    return EmptyContainer()
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    guard probe == nil else {
      throw EntitySchemaError.undecodable(type: "entity", underlying: "it decodes as one value")
    }
    return ProbeValue(found: found ?? KindFound())
  }
}

/// A keyed container that has every key: at the top, it records each property read.
private struct ProbeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let probe: SchemaProbe?

  var codingPath: [any CodingKey] { [] }
  var allKeys: [Key] { [] }
  func contains(_ key: Key) -> Bool { true }
  func decodeNil(forKey key: Key) -> Bool { false }

  private func read(_ key: Key, _ kind: EntitySchema.Kind, isOptional: Bool = false) {
    probe?.record(key.stringValue, kind, isOptional: isOptional)
  }

  /// Records a required property of `kind` and returns its made-up `value`.
  private func reading<T>(_ key: Key, _ kind: EntitySchema.Kind, _ value: T) -> T {
    read(key, kind)
    return value
  }

  func decode(_ type: Bool.Type, forKey key: Key) -> Bool { reading(key, .boolean, false) }
  func decode(_ type: String.Type, forKey key: Key) -> String { reading(key, .text, "") }
  func decode(_ type: Double.Type, forKey key: Key) -> Double { reading(key, .real, 0) }
  func decode(_ type: Float.Type, forKey key: Key) -> Float { reading(key, .real, 0) }
  func decode(_ type: Int.Type, forKey key: Key) -> Int { reading(key, .integer, 0) }
  func decode(_ type: Int8.Type, forKey key: Key) -> Int8 { reading(key, .integer, 0) }
  func decode(_ type: Int16.Type, forKey key: Key) -> Int16 { reading(key, .integer, 0) }
  func decode(_ type: Int32.Type, forKey key: Key) -> Int32 { reading(key, .integer, 0) }
  func decode(_ type: Int64.Type, forKey key: Key) -> Int64 { reading(key, .integer, 0) }
  func decode(_ type: UInt.Type, forKey key: Key) -> UInt { reading(key, .integer, 0) }
  func decode(_ type: UInt8.Type, forKey key: Key) -> UInt8 { reading(key, .integer, 0) }
  func decode(_ type: UInt16.Type, forKey key: Key) -> UInt16 { reading(key, .integer, 0) }
  func decode(_ type: UInt32.Type, forKey key: Key) -> UInt32 { reading(key, .integer, 0) }
  func decode(_ type: UInt64.Type, forKey key: Key) -> UInt64 { reading(key, .integer, 0) }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    let (value, kind) = sample(T.self)
    read(key, kind)
    guard let value else {
      throw EntitySchemaError.unsampled(property: key.stringValue, type: "\(T.self)")
    }
    return value
  }

  // NB: an optional property, or one decoded with `decodeIfPresent` and a default: recorded as
  // optional, and absent (`nil`), which every such decoding accepts.
  func decodeIfPresent(_ type: Bool.Type, forKey key: Key) -> Bool? {
    read(key, .boolean, isOptional: true)
    return nil
  }
  func decodeIfPresent(_ type: String.Type, forKey key: Key) -> String? {
    read(key, .text, isOptional: true)
    return nil
  }
  func decodeIfPresent(_ type: Double.Type, forKey key: Key) -> Double? {
    read(key, .real, isOptional: true)
    return nil
  }
  func decodeIfPresent(_ type: Float.Type, forKey key: Key) -> Float? {
    read(key, .real, isOptional: true)
    return nil
  }
  func decodeIfPresent(_ type: Int.Type, forKey key: Key) -> Int? {
    read(key, .integer, isOptional: true)
    return nil
  }
  func decodeIfPresent(_ type: Int8.Type, forKey key: Key) -> Int8? {
    read(key, .integer, isOptional: true)
    return nil
  }
  func decodeIfPresent(_ type: Int16.Type, forKey key: Key) -> Int16? {
    read(key, .integer, isOptional: true)
    return nil
  }
  func decodeIfPresent(_ type: Int32.Type, forKey key: Key) -> Int32? {
    read(key, .integer, isOptional: true)
    return nil
  }
  func decodeIfPresent(_ type: Int64.Type, forKey key: Key) -> Int64? {
    read(key, .integer, isOptional: true)
    return nil
  }
  func decodeIfPresent(_ type: UInt.Type, forKey key: Key) -> UInt? {
    read(key, .integer, isOptional: true)
    return nil
  }
  func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) -> UInt8? {
    read(key, .integer, isOptional: true)
    return nil
  }
  func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) -> UInt16? {
    read(key, .integer, isOptional: true)
    return nil
  }
  func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) -> UInt32? {
    read(key, .integer, isOptional: true)
    return nil
  }
  func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) -> UInt64? {
    read(key, .integer, isOptional: true)
    return nil
  }
  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) -> T? {
    read(key, sample(T.self).kind, isOptional: true)
    return nil
  }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key)
    -> KeyedDecodingContainer<NestedKey>
  {
    read(key, .json)
    return KeyedDecodingContainer(ProbeContainer<NestedKey>(probe: nil))
  }

  func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedDecodingContainer {
    read(key, .json)
    return EmptyContainer()
  }

  func superDecoder() -> any Decoder { SchemaProbeDecoder(found: KindFound()) }
  func superDecoder(forKey key: Key) -> any Decoder {
    read(key, .json)
    return SchemaProbeDecoder(found: KindFound())
  }
}

/// One made-up value: records the kind asked for.
private struct ProbeValue: SingleValueDecodingContainer {
  let found: KindFound

  var codingPath: [any CodingKey] { [] }
  func decodeNil() -> Bool { false }

  func decode(_ type: Bool.Type) -> Bool { found.found(.boolean, false) }
  func decode(_ type: String.Type) -> String { found.found(.text, "") }
  func decode(_ type: Double.Type) -> Double { found.found(.real, 0) }
  func decode(_ type: Float.Type) -> Float { found.found(.real, 0) }
  func decode(_ type: Int.Type) -> Int { found.found(.integer, 0) }
  func decode(_ type: Int8.Type) -> Int8 { found.found(.integer, 0) }
  func decode(_ type: Int16.Type) -> Int16 { found.found(.integer, 0) }
  func decode(_ type: Int32.Type) -> Int32 { found.found(.integer, 0) }
  func decode(_ type: Int64.Type) -> Int64 { found.found(.integer, 0) }
  func decode(_ type: UInt.Type) -> UInt { found.found(.integer, 0) }
  func decode(_ type: UInt8.Type) -> UInt8 { found.found(.integer, 0) }
  func decode(_ type: UInt16.Type) -> UInt16 { found.found(.integer, 0) }
  func decode(_ type: UInt32.Type) -> UInt32 { found.found(.integer, 0) }
  func decode(_ type: UInt64.Type) -> UInt64 { found.found(.integer, 0) }

  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    let (value, kind) = sample(T.self)
    found.found(kind)
    guard let value else {
      throw EntitySchemaError.unsampled(property: "", type: "\(T.self)")
    }
    return value
  }
}

/// An empty list.
private struct EmptyContainer: UnkeyedDecodingContainer {
  var codingPath: [any CodingKey] { [] }
  var count: Int? { 0 }
  var isAtEnd: Bool { true }
  var currentIndex: Int { 0 }

  private func end() -> DecodingError {
    .valueNotFound(Any.self, .init(codingPath: [], debugDescription: "an empty list"))
  }

  mutating func decodeNil() throws -> Bool { throw end() }
  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { throw end() }
  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
    -> KeyedDecodingContainer<NestedKey>
  { throw end() }
  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw end() }
  mutating func superDecoder() throws -> any Decoder { throw end() }
}
