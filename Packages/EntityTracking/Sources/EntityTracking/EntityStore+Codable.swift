extension EntityStore: Codable where Entity: Codable {
  /// Encodes the entities in order (recorded changes are not encoded).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    for entity in self { try container.encode(entity) }
  }

  /// Decodes the entities in order, recording no changes.
  public init(from decoder: any Decoder) throws {
    self.init(try [Entity](from: decoder))
  }
}
