/// Where an error handed to the resolvers came from.
public enum Origin: Equatable, Hashable, Sendable {
  /// The middleware with this id threw, called `context.resolve(_:)`, or its task threw.
  case middleware(String)
}
