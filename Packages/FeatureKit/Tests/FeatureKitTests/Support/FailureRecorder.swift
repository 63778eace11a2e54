import FeatureKitTesting
import Synchronization

/// An assertion provider that keeps failures instead of failing the test: for tests of the
/// test store itself.
final class FailureRecorder: AssertionProvider {
  private let recorded = Mutex<[String]>([])

  var messages: [String] { recorded.withLock { $0 } }

  func fail(_ message: String, at location: TestLocation) {
    recorded.withLock { $0.append(message) }
  }
}
