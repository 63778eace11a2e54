import Foundation
import Testing

@testable import PersistenceSQLite

/// The one-pass encoder must write what `JSONDecoder` reads back, byte for byte what
/// `JSONEncoder` writes for the usual shapes, and fall back to `JSONEncoder` for the rest.
@Suite struct EntityJSONEncoderTests {
  enum Kind: String, Codable, Equatable { case plain, fancy }

  enum Payload: Codable, Equatable {
    case none
    case text(String)
    case pair(Int, label: String)
  }

  struct Nested: Codable, Equatable {
    var values: [Int]
    var flags: [String: Bool]
  }

  struct Everything: Codable, Equatable {
    var id: UUID
    var int: Int
    var negative: Int64
    var unsigned: UInt8
    var double: Double
    var whole: Double
    var float: Float
    var bool: Bool
    var text: String
    var optional: String?
    var present: Int?
    var kind: Kind
    var payload: Payload
    var nested: Nested
    var list: [Nested]
    var matrix: [[Double]]
    var date: Date
    var data: Data
    var url: URL
    var decimal: Decimal
    var byInt: [Int: String]
    var empty: [String]
  }

  static let everything = Everything(
    id: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
    int: 42, negative: -9_000_000_000, unsigned: 255, double: 0.1, whole: 3, float: 2.5, bool: true,
    text: "quote \" backslash \\ slash / newline \n tab \t bell \u{7} é 🦊",
    optional: nil, present: 7, kind: .fancy, payload: .pair(3, label: "three"),
    nested: Nested(values: [1, 2, 3], flags: ["on": true]),
    list: [Nested(values: [], flags: [:]), Nested(values: [4], flags: ["off": false])],
    matrix: [[1.5, -2.25], [1e-7, 6.02e23]],
    date: Date(timeIntervalSinceReferenceDate: 123_456.5),
    data: Data([0, 1, 2, 250]), url: URL(string: "https://example.com/a?b=c")!,
    decimal: Decimal(string: "12.345")!, byInt: [1: "one"], empty: [])

  @Test func writesWhatJSONEncoderWritesForTheUsualShapes() throws {
    // Same members and values; JSONEncoder's key order is not stable, ours is declaration order.
    let ours = try EntityJSONEncoder().encode(Self.everything)
    let foundation = try JSONEncoder().encode(Self.everything)
    #expect(try Self.object(ours) == Self.object(foundation))
    #expect(
      String(decoding: ours, as: UTF8.self).hasPrefix(
        #"{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","int":42,"#))
  }

  private static func object(_ json: Data) throws -> NSDictionary? {
    try JSONSerialization.jsonObject(with: json) as? NSDictionary
  }

  @Test func roundTripsThroughJSONDecoder() throws {
    let decoded = try JSONDecoder().decode(
      Everything.self, from: EntityJSONEncoder().encode(Self.everything))
    #expect(decoded == Self.everything)
  }

  @Test func escapesEveryControlCharacter() throws {
    let text = String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }) + "\u{7F}\u{2028}"
    let decoded = try JSONDecoder().decode([String].self, from: EntityJSONEncoder().encode([text]))
    #expect(decoded == [text])
  }

  @Test func reusesItsBufferWithoutLeakingEarlierOutput() throws {
    let encoder = EntityJSONEncoder()
    _ = try encoder.encode(Self.everything)
    #expect(String(decoding: try encoder.encode(Kind.plain), as: UTF8.self) == #""plain""#)
  }

  @Test func writesEveryIntegerExactly() throws {
    let values: [Int64] = [0, 7, -7, 10, -10, 1_000_000, .max, .min]
    #expect(
      try JSONDecoder().decode([Int64].self, from: EntityJSONEncoder().encode(values)) == values)
    let unsigned: [UInt64] = [0, .max]
    #expect(
      String(decoding: try EntityJSONEncoder().encode(unsigned), as: UTF8.self)
        == "[0,18446744073709551615]")
  }

  @Test func aNonFiniteNumberIsAnEncodingError() {
    #expect(throws: EncodingError.self) { try EntityJSONEncoder().encode(["x": Double.infinity]) }
  }

  /// Writes to a parent container after opening a nested one, then back into the nested one.
  struct Interleaved: Codable, Equatable {
    var a: Int
    var b: [Int]
    var c: Int

    enum CodingKeys: String, CodingKey { case a, b, c }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      var list = container.nestedUnkeyedContainer(forKey: .b)
      try list.encode(b[0])
      try container.encode(a, forKey: .a)
      for value in b.dropFirst() { try list.encode(value) }
      try container.encode(c, forKey: .c)
    }
  }

  /// Opens a container inside one that was closed when its sibling opened: the nested
  /// container itself cannot be placed.
  struct Reopened: Encodable {
    enum CodingKeys: String, CodingKey { case x, y }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      var x = container.nestedUnkeyedContainer(forKey: .x)
      var y = container.nestedUnkeyedContainer(forKey: .y)
      try y.encode(1)
      var inner = x.nestedUnkeyedContainer()
      try inner.encode(2)
    }
  }

  class Base: Codable {
    var name = "base"
  }

  final class Derived: Base {
    var extra = 1
    enum CodingKeys: String, CodingKey { case extra }
    override init() { super.init() }
    required init(from decoder: any Decoder) throws {
      extra = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .extra)
      try super.init(from: decoder.container(keyedBy: CodingKeys.self).superDecoder())
    }
    override func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(extra, forKey: .extra)
      try super.encode(to: container.superEncoder())
    }
  }

  @Test func fallsBackToJSONEncoderForShapesItCannotStream() throws {
    let interleaved = Interleaved(a: 1, b: [2, 3, 4], c: 5)
    #expect(
      try Self.object(EntityJSONEncoder().encode(interleaved))
        == Self.object(JSONEncoder().encode(interleaved)))
    let derived = Derived()
    #expect(
      try Self.object(EntityJSONEncoder().encode(derived))
        == Self.object(JSONEncoder().encode(derived)))
    #expect(
      try Self.object(EntityJSONEncoder().encode(Reopened()))
        == Self.object(JSONEncoder().encode(Reopened())))
  }
}
