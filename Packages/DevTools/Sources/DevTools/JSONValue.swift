import Foundation

/// A JSON value, as a session records actions and states: what any `Encodable` becomes, and what
/// a diff, a file and a browser read back without knowing the app's types.
public enum JSONValue: Sendable, Hashable, Codable, CustomStringConvertible {
  /// `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number (JSON has one kind).
  case number(Double)
  /// A string.
  case string(String)
  /// An array.
  case array([JSONValue])
  /// An object, its keys unordered (written sorted).
  case object([String: JSONValue])

  /// Encodes `value` as JSON and reads it back as a ``JSONValue``.
  ///
  /// - Throws: The encoder's error (a `Double.nan`, say).
  public init(encoding value: some Encodable) throws {
    self = try JSONDecoder().decode(JSONValue.self, from: Self.encoder.encode(value))
  }

  /// Decodes `type` from this value.
  ///
  /// - Throws: The decoder's error when the value does not have `type`'s shape.
  public func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
    try JSONDecoder().decode(Value.self, from: Self.encoder.encode(self))
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let bool = try? container.decode(Bool.self) {
      self = .bool(bool)
    } else if let number = try? container.decode(Double.self) {
      self = .number(number)
    } else if let string = try? container.decode(String.self) {
      self = .string(string)
    } else if let array = try? container.decode([JSONValue].self) {
      self = .array(array)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let bool): try container.encode(bool)
    case .number(let number): try container.encode(number)
    case .string(let string): try container.encode(string)
    case .array(let array): try container.encode(array)
    case .object(let object): try container.encode(object)
    }
  }

  /// Compact JSON, keys sorted.
  public var description: String {
    (try? String(decoding: Self.encoder.encode(self), as: UTF8.self)) ?? "?"
  }

  /// Sorted keys: the same value is the same text in every file and on every page.
  static let encoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }()
}
