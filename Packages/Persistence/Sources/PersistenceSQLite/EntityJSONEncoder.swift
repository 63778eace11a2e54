import struct Foundation.Data
import struct Foundation.Decimal
import class Foundation.JSONEncoder
import struct Foundation.URL

/// Encodes an entity as the JSON that `JSONEncoder` (default strategies) writes, in one pass
/// into a reused byte buffer: about five times faster than `JSONEncoder`, which builds a tree
/// of values first. Encoding is most of the cost of a large flush.
///
/// The output is read back by `JSONDecoder`. Shapes of `Encodable` code that a single pass
/// cannot write — writing to a container after a sibling container was opened, asking one
/// encoder for two kinds of container, `superEncoder` — fall back to `JSONEncoder`.
struct EntityJSONEncoder {
  private let writer = JSONWriter()

  func encode<Value: Encodable>(_ value: Value) throws -> Data {
    if let fallback = try encodeInPlace(value) { return fallback }
    return Data(writer.bytes)
  }

  /// Encodes `value` into the encoder's buffer, which ``withBytes(_:)`` reads until the next
  /// encoding; returns `JSONEncoder`'s output instead (the buffer is then not used) for a shape
  /// a single pass cannot write.
  func encodeInPlace<Value: Encodable>(_ value: Value) throws -> Data? {
    writer.reset()
    do {
      try writer.writeValue(value, codingPath: [])
    } catch  where writer.isUnsupported {
      // NB: whatever the value's code made of our error, the shape is what failed.
    }
    if writer.isUnsupported {
      return try JSONEncoder().encode(value)
    }
    return nil
  }

  /// Calls `body` with the bytes of the last ``encodeInPlace(_:)``, without copying them.
  func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
    try writer.withBytes(body)
  }
}

/// The shape `Encodable` code asked for that a single pass cannot write.
private struct UnsupportedShape: Error {}

/// The output of one encoding, and the containers still open in it.
///
/// NB: the output lives behind a pointer the writer owns, not in a stored `var`: every access
/// to a class's stored `var` pays a dynamic exclusivity check, which cost more than the encoding
/// itself. A writer belongs to one encoder, used by one thread at a time.
private final class JSONWriter {
  private let output: UnsafeMutablePointer<JSONOutput>

  init() {
    output = .allocate(capacity: 1)
    output.initialize(to: JSONOutput())
  }

  deinit {
    output.deinitialize(count: 1)
    output.deallocate()
  }

  var bytes: [UInt8] { output.pointee.bytes }
  func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
    try output.pointee.bytes.withUnsafeBytes(body)
  }
  var depth: Int { output.pointee.open.count }
  var isUnsupported: Bool { output.pointee.isUnsupported }

  func reset() { output.pointee.reset() }
  func markUnsupported() { output.pointee.isUnsupported = true }
  func openContainer(isObject: Bool) -> Int { output.pointee.openContainer(isObject: isObject) }

  /// Opens a nested container once `begin` has placed it. `nestedContainer` cannot throw, so a
  /// shape that cannot be streamed is not an error here: the writer is marked unsupported (the
  /// whole entity is then encoded again by JSONEncoder) and the container writes nowhere.
  func openNestedContainer(isObject: Bool, after begin: () throws -> Void) -> Int {
    do {
      try begin()
    } catch {
      markUnsupported()
      return 0
    }
    return openContainer(isObject: isObject)
  }
  func close(downTo depth: Int) { output.pointee.close(downTo: depth) }
  func beginElement(of owner: Int, at depth: Int) throws {
    try output.pointee.beginElement(of: owner, at: depth)
  }
  func writeKey(_ key: some CodingKey) { output.pointee.writeKey(key.stringValue) }
  func writeNull() { output.pointee.append("null") }
  func writeBool(_ value: Bool) { output.pointee.append(value ? "true" : "false") }
  func writeInteger(_ value: some BinaryInteger) { output.pointee.appendInteger(value) }
  func writeString(_ string: String) { output.pointee.writeString(string) }
  func writeRaw(_ text: String) { output.pointee.append(text) }

  func writeFloatingPoint<F: BinaryFloatingPoint & LosslessStringConvertible>(
    _ value: F, codingPath: [any CodingKey]
  ) throws {
    guard value.isFinite else {
      throw EncodingError.invalidValue(
        value,
        .init(
          codingPath: codingPath,
          debugDescription: "Unable to encode \(F.self).\(value) directly in JSON."))
    }
    var text = value.description
    if text.hasSuffix(".0") { text.removeLast(2) }  // as JSONEncoder writes it
    output.pointee.append(text)
  }

  /// Writes any value, as `JSONEncoder` would with its default strategies.
  func writeValue<Value: Encodable>(_ value: Value, codingPath: [any CodingKey]) throws {
    switch value {
    case let data as Data: writeString(data.base64EncodedString())
    case let url as URL: writeString(url.absoluteString)
    case let decimal as Decimal: writeRaw(decimal.description)
    default:
      let depth = depth
      let encoder = ValueEncoder(writer: self, depth: depth, codingPath: codingPath)
      try value.encode(to: encoder)
      guard !isUnsupported else { throw UnsupportedShape() }
      close(downTo: depth)
      if !encoder.hasValue { writeRaw("{}") }
    }
  }
}

private struct JSONOutput {
  var bytes: [UInt8] = []
  /// Open containers, innermost last: who owns each, whether it is an object, its element count.
  var open: [(owner: Int, isObject: Bool, count: Int)] = []
  var lastOwner = 0
  var isUnsupported = false

  mutating func reset() {
    bytes.removeAll(keepingCapacity: true)
    open.removeAll(keepingCapacity: true)
    isUnsupported = false
  }

  mutating func append(_ text: String) {
    bytes.append(contentsOf: text.utf8)
  }

  /// Appends the decimal digits of `value` without making a `String` first.
  mutating func appendInteger(_ value: some BinaryInteger) {
    guard let value = Int64(exactly: value) else { return append(String(value)) }
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    var magnitude = value.magnitude
    let start = bytes.count
    repeat {
      bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
      magnitude /= 10
    } while magnitude > 0
    bytes[start...].reverse()
  }

  /// Opens an object or array and returns its owner id.
  mutating func openContainer(isObject: Bool) -> Int {
    bytes.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
    lastOwner += 1
    open.append((lastOwner, isObject, 0))
    return lastOwner
  }

  /// Closes the containers deeper than `depth`: their scope ended.
  mutating func close(downTo depth: Int) {
    while open.count > depth {
      bytes.append(open.removeLast().isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
    }
  }

  /// Starts the next element of the container `owner`, which sits at `depth`.
  mutating func beginElement(of owner: Int, at depth: Int) throws {
    guard !isUnsupported else { throw UnsupportedShape() }
    close(downTo: depth)
    guard open.count == depth, open[depth - 1].owner == owner else {
      isUnsupported = true
      throw UnsupportedShape()
    }
    if open[depth - 1].count > 0 { bytes.append(UInt8(ascii: ",")) }
    open[depth - 1].count += 1
  }

  mutating func writeKey(_ key: String) {
    writeString(key)
    bytes.append(UInt8(ascii: ":"))
  }

  private static func needsEscaping(_ byte: UInt8) -> Bool {
    byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
      || byte == UInt8(ascii: "/")
  }

  mutating func writeString(_ string: String) {
    bytes.append(UInt8(ascii: "\""))
    defer { bytes.append(UInt8(ascii: "\"")) }
    let appended = string.utf8.withContiguousStorageIfAvailable { utf8 in
      guard !utf8.contains(where: Self.needsEscaping) else { return false }
      bytes.append(contentsOf: utf8)
      return true
    }
    guard appended != true else { return }
    for byte in string.utf8 {
      switch byte {
      case UInt8(ascii: "\""): append(#"\""#)
      case UInt8(ascii: "\\"): append(#"\\"#)
      case UInt8(ascii: "/"): append(#"\/"#)
      case 0x0A: append(#"\n"#)
      case 0x0D: append(#"\r"#)
      case 0x09: append(#"\t"#)
      case 0x08: append(#"\b"#)
      case 0x0C: append(#"\f"#)
      case 0..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        append(#"\u00"#)
        bytes.append(hex[Int(byte >> 4)])
        bytes.append(hex[Int(byte & 0xF)])
      default: bytes.append(byte)
      }
    }
  }
}

/// The encoder of one value slot: the value asks it for one container, or writes itself.
private final class ValueEncoder: Encoder {
  let writer: JSONWriter
  let depth: Int
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }
  private(set) var hasValue = false
  private var container: (owner: Int, isObject: Bool)?

  init(writer: JSONWriter, depth: Int, codingPath: [any CodingKey]) {
    self.writer = writer
    self.depth = depth
    self.codingPath = codingPath
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(
      KeyedContainer<Key>(
        writer: writer, owner: owner(isObject: true), depth: depth + 1, codingPath: codingPath))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    UnkeyedContainer(
      writer: writer, owner: owner(isObject: false), depth: depth + 1, codingPath: codingPath)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleValueContainer(encoder: self)
  }

  /// The container of this slot: opened on the first request; a second request for the same
  /// kind gets the same container (as with `JSONEncoder`).
  private func owner(isObject: Bool) -> Int {
    if let container, container.isObject == isObject { return container.owner }
    guard !hasValue, writer.depth == depth else {
      writer.markUnsupported()
      return 0
    }
    hasValue = true
    let owner = writer.openContainer(isObject: isObject)
    container = (owner, isObject)
    return owner
  }

  /// Starts the single value of this slot.
  func beginSingleValue() throws {
    guard !hasValue, writer.depth == depth, !writer.isUnsupported else {
      writer.markUnsupported()
      throw UnsupportedShape()
    }
    hasValue = true
  }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let writer: JSONWriter
  let owner: Int
  let depth: Int
  let codingPath: [any CodingKey]

  private func begin(_ key: Key) throws {
    try writer.beginElement(of: owner, at: depth)
    writer.writeKey(key)
  }

  mutating func encodeNil(forKey key: Key) throws {
    try begin(key)
    writer.writeNull()
  }
  mutating func encode(_ value: Bool, forKey key: Key) throws {
    try begin(key)
    writer.writeBool(value)
  }
  mutating func encode(_ value: String, forKey key: Key) throws {
    try begin(key)
    writer.writeString(value)
  }
  mutating func encode(_ value: Double, forKey key: Key) throws {
    try begin(key)
    try writer.writeFloatingPoint(value, codingPath: codingPath + [key])
  }
  mutating func encode(_ value: Float, forKey key: Key) throws {
    try begin(key)
    try writer.writeFloatingPoint(value, codingPath: codingPath + [key])
  }
  mutating func encode(_ value: Int, forKey key: Key) throws {
    try begin(key)
    writer.writeInteger(value)
  }
  mutating func encode(_ value: Int8, forKey key: Key) throws {
    try begin(key)
    writer.writeInteger(value)
  }
  mutating func encode(_ value: Int16, forKey key: Key) throws {
    try begin(key)
    writer.writeInteger(value)
  }
  mutating func encode(_ value: Int32, forKey key: Key) throws {
    try begin(key)
    writer.writeInteger(value)
  }
  mutating func encode(_ value: Int64, forKey key: Key) throws {
    try begin(key)
    writer.writeInteger(value)
  }
  mutating func encode(_ value: UInt, forKey key: Key) throws {
    try begin(key)
    writer.writeInteger(value)
  }
  mutating func encode(_ value: UInt8, forKey key: Key) throws {
    try begin(key)
    writer.writeInteger(value)
  }
  mutating func encode(_ value: UInt16, forKey key: Key) throws {
    try begin(key)
    writer.writeInteger(value)
  }
  mutating func encode(_ value: UInt32, forKey key: Key) throws {
    try begin(key)
    writer.writeInteger(value)
  }
  mutating func encode(_ value: UInt64, forKey key: Key) throws {
    try begin(key)
    writer.writeInteger(value)
  }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try begin(key)
    try writer.writeValue(value, codingPath: codingPath + [key])
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    let owner = writer.openNestedContainer(isObject: true) { try begin(key) }
    return KeyedEncodingContainer(
      KeyedContainer<NestedKey>(
        writer: writer, owner: owner, depth: depth + 1, codingPath: codingPath + [key]))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let owner = writer.openNestedContainer(isObject: false) { try begin(key) }
    return UnkeyedContainer(
      writer: writer, owner: owner, depth: depth + 1, codingPath: codingPath + [key])
  }

  mutating func superEncoder() -> any Encoder { unsupported() }
  mutating func superEncoder(forKey key: Key) -> any Encoder { unsupported() }

  private func unsupported() -> any Encoder {
    writer.markUnsupported()
    return ValueEncoder(writer: writer, depth: -1, codingPath: codingPath)
  }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
  let writer: JSONWriter
  let owner: Int
  let depth: Int
  let codingPath: [any CodingKey]
  private(set) var count = 0

  init(writer: JSONWriter, owner: Int, depth: Int, codingPath: [any CodingKey]) {
    self.writer = writer
    self.owner = owner
    self.depth = depth
    self.codingPath = codingPath
  }

  private mutating func begin() throws {
    try writer.beginElement(of: owner, at: depth)
    count += 1
  }

  mutating func encodeNil() throws {
    try begin()
    writer.writeNull()
  }
  mutating func encode(_ value: Bool) throws {
    try begin()
    writer.writeBool(value)
  }
  mutating func encode(_ value: String) throws {
    try begin()
    writer.writeString(value)
  }
  mutating func encode(_ value: Double) throws {
    try begin()
    try writer.writeFloatingPoint(value, codingPath: codingPath)
  }
  mutating func encode(_ value: Float) throws {
    try begin()
    try writer.writeFloatingPoint(value, codingPath: codingPath)
  }
  mutating func encode(_ value: Int) throws {
    try begin()
    writer.writeInteger(value)
  }
  mutating func encode(_ value: Int8) throws {
    try begin()
    writer.writeInteger(value)
  }
  mutating func encode(_ value: Int16) throws {
    try begin()
    writer.writeInteger(value)
  }
  mutating func encode(_ value: Int32) throws {
    try begin()
    writer.writeInteger(value)
  }
  mutating func encode(_ value: Int64) throws {
    try begin()
    writer.writeInteger(value)
  }
  mutating func encode(_ value: UInt) throws {
    try begin()
    writer.writeInteger(value)
  }
  mutating func encode(_ value: UInt8) throws {
    try begin()
    writer.writeInteger(value)
  }
  mutating func encode(_ value: UInt16) throws {
    try begin()
    writer.writeInteger(value)
  }
  mutating func encode(_ value: UInt32) throws {
    try begin()
    writer.writeInteger(value)
  }
  mutating func encode(_ value: UInt64) throws {
    try begin()
    writer.writeInteger(value)
  }
  mutating func encode<T: Encodable>(_ value: T) throws {
    try begin()
    try writer.writeValue(value, codingPath: codingPath)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type
  ) -> KeyedEncodingContainer<NestedKey> {
    let owner = writer.openNestedContainer(isObject: true) { try begin() }
    return KeyedEncodingContainer(
      KeyedContainer<NestedKey>(
        writer: writer, owner: owner, depth: depth + 1, codingPath: codingPath))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let owner = writer.openNestedContainer(isObject: false) { try begin() }
    return UnkeyedContainer(writer: writer, owner: owner, depth: depth + 1, codingPath: codingPath)
  }

  mutating func superEncoder() -> any Encoder {
    writer.markUnsupported()
    return ValueEncoder(writer: writer, depth: -1, codingPath: codingPath)
  }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
  let encoder: ValueEncoder
  var codingPath: [any CodingKey] { encoder.codingPath }
  private var writer: JSONWriter { encoder.writer }

  mutating func encodeNil() throws {
    try encoder.beginSingleValue()
    writer.writeNull()
  }
  mutating func encode(_ value: Bool) throws {
    try encoder.beginSingleValue()
    writer.writeBool(value)
  }
  mutating func encode(_ value: String) throws {
    try encoder.beginSingleValue()
    writer.writeString(value)
  }
  mutating func encode(_ value: Double) throws {
    try encoder.beginSingleValue()
    try writer.writeFloatingPoint(value, codingPath: codingPath)
  }
  mutating func encode(_ value: Float) throws {
    try encoder.beginSingleValue()
    try writer.writeFloatingPoint(value, codingPath: codingPath)
  }
  mutating func encode(_ value: Int) throws {
    try encoder.beginSingleValue()
    writer.writeInteger(value)
  }
  mutating func encode(_ value: Int8) throws {
    try encoder.beginSingleValue()
    writer.writeInteger(value)
  }
  mutating func encode(_ value: Int16) throws {
    try encoder.beginSingleValue()
    writer.writeInteger(value)
  }
  mutating func encode(_ value: Int32) throws {
    try encoder.beginSingleValue()
    writer.writeInteger(value)
  }
  mutating func encode(_ value: Int64) throws {
    try encoder.beginSingleValue()
    writer.writeInteger(value)
  }
  mutating func encode(_ value: UInt) throws {
    try encoder.beginSingleValue()
    writer.writeInteger(value)
  }
  mutating func encode(_ value: UInt8) throws {
    try encoder.beginSingleValue()
    writer.writeInteger(value)
  }
  mutating func encode(_ value: UInt16) throws {
    try encoder.beginSingleValue()
    writer.writeInteger(value)
  }
  mutating func encode(_ value: UInt32) throws {
    try encoder.beginSingleValue()
    writer.writeInteger(value)
  }
  mutating func encode(_ value: UInt64) throws {
    try encoder.beginSingleValue()
    writer.writeInteger(value)
  }
  mutating func encode<T: Encodable>(_ value: T) throws {
    try encoder.beginSingleValue()
    try writer.writeValue(value, codingPath: codingPath)
  }
}
