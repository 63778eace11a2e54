import QueryCache

/// What one recording does to the query cache, decided when the changes are recorded and
/// performed later in one step on the cache: the keys and prefixes to invalidate, the patches
/// to apply.
struct CacheUpdatePlan: Sendable {
  /// A patch bound to its key and its changes.
  struct BoundPatch: Sendable {
    let key: QueryKey
    let valueTypeName: String
    let apply: @Sendable (isolated QueryClientCache) -> QueryClientCache.PatchOutcome
  }

  /// The plan's place in its invalidator's order of recordings.
  let number: Int
  /// Whether the recorder waits for the ``EntityQueryUpdate``
  /// (``EntityQueryInvalidator/apply(_:in:)``).
  let reportsOutcome: Bool
  let changedEntityCount: Int
  private(set) var invalidatedKeys: [QueryKey] = []
  private(set) var invalidatedPrefixes: [QueryKey] = []
  private(set) var patches: [BoundPatch] = []

  /// Plans what `changes` do to the queries `dependencies` declare.
  ///
  /// - Complexity: O(*c*·*d*), *c* changes and *d* dependencies, times the cost of judging one
  ///   (a predicate or key function on two values).
  init<Entity>(
    number: Int, reportsOutcome: Bool, changes: [EntityValueChange<Entity>],
    dependencies: [QueryDependency<Entity>]
  ) {
    self.number = number
    self.reportsOutcome = reportsOutcome
    changedEntityCount = changes.count
    let invalidating = dependencies.filter { $0.patch == nil }
    var invalidated = Set<QueryTarget>()
    for change in changes {
      for dependency in invalidating {
        for target in dependency.targets(touchedBy: change)
        where invalidated.insert(target).inserted {
          switch target {
          case .key(let key): invalidatedKeys.append(key)
          case .prefix(let prefix): invalidatedPrefixes.append(prefix)
          }
        }
      }
    }
    typealias Touched = (
      key: QueryKey, patch: QueryDependency<Entity>.Patch, changes: [EntityValueChange<Entity>]
    )
    var patched: [Touched] = []
    for dependency in dependencies {
      guard let patch = dependency.patch else { continue }
      guard case .key(let key) = dependency.queries else {
        preconditionFailure("a patch of \(dependency.queries) instead of one key")
      }
      let touching = changes.filter { !dependency.targets(touchedBy: $0).isEmpty }
      if !touching.isEmpty { patched.append((key, patch, touching)) }
    }
    // NB: a key invalidated anyway needs no patch: the patch would find nothing to change.
    for (key, patch, changes) in patched where !invalidates(key) {
      patches.append(
        BoundPatch(key: key, valueTypeName: patch.valueTypeName) { cache in
          patch.apply(cache, key, changes)
        })
    }
  }

  /// Whether the plan reaches no query.
  var isEmpty: Bool {
    invalidatedKeys.isEmpty && invalidatedPrefixes.isEmpty && patches.isEmpty
  }

  /// Whether the plan invalidates `key`, by itself or under a prefix.
  func invalidates(_ key: QueryKey) -> Bool {
    invalidatedKeys.contains(key) || invalidatedPrefixes.contains { key.hasPrefix($0) }
  }

  /// Performs the plan on `cache`, in one step: invalidations first, then patches.
  ///
  /// - Returns: What it did.
  /// - Complexity: O(*n*·*p*) for the invalidations, *n* the cache's entries and invalidation
  ///   streams and *p* the prefixes, plus each patch.
  func perform(on cache: isolated QueryClientCache) -> EntityQueryUpdate {
    var update = EntityQueryUpdate()
    update.changedEntityCount = changedEntityCount
    update.invalidatedKeys = invalidatedKeys
    update.invalidatedPrefixes = invalidatedPrefixes
    if !invalidatedKeys.isEmpty || !invalidatedPrefixes.isEmpty {
      let keys = Set(invalidatedKeys)
      let prefixes = invalidatedPrefixes
      cache.invalidate { key in keys.contains(key) || prefixes.contains { key.hasPrefix($0) } }
    }
    for patch in patches {
      switch patch.apply(cache) {
      case .patched:
        update.patchedKeys.append(patch.key)
      case .notCached:
        break
      case .invalidatedFetchInFlight:
        update.invalidatedKeys.append(patch.key)
      case .invalidatedTypeMismatch(let stored):
        update.invalidatedKeys.append(patch.key)
        update.errors.append(
          .typeMismatch(key: patch.key, expected: patch.valueTypeName, stored: stored))
      }
    }
    return update
  }
}
