import PropertyBased
import Testing

@testable import ReduxCore

/// The admission state machine against naive models of each policy over random offer times.
///
/// A driver plays the offers of one key on a virtual clock with one timer, as the owners do: at
/// each offer's time, a timer due by then fires first; after the last offer, the timer fires
/// until nothing is armed. Every ticket must end admitted, superseded or refused, exactly once.
@Suite struct AdmissionModelTests {
  /// What happened to each ticket, and when it was admitted.
  struct Outcome: Equatable {
    var admittedAt: [Int: Int] = [:]
    var superseded: Set<Int> = []
    var refused: Set<Int> = []
  }

  static let gaps = Gen.int(in: 0...250).array(of: 1...40)

  /// Offer times in milliseconds, from random gaps.
  static func times(_ gaps: [Int]) -> [Int] {
    var now = 0
    return gaps.map { gap in
      now += gap
      return now
    }
  }

  func drive(_ policy: AdmissionPolicy, offers times: [Int]) -> Outcome {
    var machine = AdmissionStateMachine<String, Int>()
    var outcome = Outcome()
    var armedAt: Int?
    func apply(_ decision: AdmissionStateMachine<String, Int>.Decision, ticket: Int?, now: Int) {
      if let admitted = decision.admitted {
        #expect(outcome.admittedAt[admitted] == nil, "ticket \(admitted) admitted twice")
        outcome.admittedAt[admitted] = now
      }
      if let superseded = decision.superseded { outcome.superseded.insert(superseded) }
      if decision.refused != nil, let ticket { outcome.refused.insert(ticket) }
      if let armAt = decision.armAt {
        armedAt =
          Int(armAt.components.seconds * 1000)
          + Int(armAt.components.attoseconds / 1_000_000_000_000_000)
      }
    }
    func fireTimers(until limit: Int?) {
      while let due = armedAt, limit.map({ due <= $0 }) ?? true {
        armedAt = nil
        apply(
          machine.deadlineReached("k", policy: policy, now: .milliseconds(due)), ticket: nil,
          now: due)
      }
    }
    for (ticket, time) in times.enumerated() {
      fireTimers(until: time)
      apply(
        machine.offer(ticket, key: "k", policy: policy, now: .milliseconds(time)), ticket: ticket,
        now: time)
    }
    fireTimers(until: nil)
    for ticket in times.indices {
      let fates = [
        outcome.admittedAt[ticket] != nil, outcome.superseded.contains(ticket),
        outcome.refused.contains(ticket),
      ]
      #expect(fates.filter { $0 }.count == 1, "ticket \(ticket) at \(times[ticket]): \(fates)")
    }
    return outcome
  }

  /// Debounce, from its definition: a run of offers ends at the first offer that comes at or
  /// after the last one's deadline (interval after it, and at most maxWait after the run's
  /// first); the last offer of each run is admitted at that deadline, the others superseded.
  func debounceModel(_ times: [Int], interval: Int, maxWait: Int?) -> Outcome {
    var outcome = Outcome()
    var first: Int?
    for (ticket, time) in times.enumerated() {
      let runStart = first ?? time
      first = runStart
      var deadline = time + interval
      if let maxWait { deadline = min(deadline, runStart + maxWait) }
      if ticket + 1 < times.count, times[ticket + 1] < deadline {
        outcome.superseded.insert(ticket)
      } else {
        outcome.admittedAt[ticket] = deadline
        first = nil
      }
    }
    return outcome
  }

  @Test func debounceAgreesWithTheModel() async {
    await propertyCheck(count: 300, input: Self.gaps, Gen.int(in: 1...200), Gen.int(in: 0...400)) {
      gaps, interval, maxWait in
      let times = Self.times(gaps)
      for wait in [nil, maxWait] {
        let outcome = drive(
          .debounce(.milliseconds(interval), maxWait: wait.map { .milliseconds($0) }), offers: times
        )
        #expect(outcome == debounceModel(times, interval: interval, maxWait: wait))
      }
    }
  }

  /// Throttle, from its definition: admissions are at least an interval apart; with
  /// `trailing`, the last offer is always admitted and nothing is refused; without it,
  /// nothing is superseded, and an offer is admitted at once exactly when the last admission
  /// was an interval ago or more.
  @Test func throttleKeepsItsPromises() async {
    await propertyCheck(count: 300, input: Self.gaps, Gen.int(in: 1...200), Gen.int(in: 0...2)) {
      gaps, interval, edges in
      let times = Self.times(gaps)
      let (leading, trailing) = [(true, true), (true, false), (false, true)][edges]
      let outcome = drive(
        .throttle(.milliseconds(interval), leading: leading, trailing: trailing), offers: times)
      let admissions = outcome.admittedAt.sorted { $0.key < $1.key }
      #expect(admissions.map(\.value) == admissions.map(\.value).sorted(), "admitted in order")
      for (earlier, later) in zip(admissions, admissions.dropFirst()) {
        #expect(later.value - earlier.value >= interval, "\(earlier) and \(later) too close")
      }
      for (ticket, time) in outcome.admittedAt { #expect(time >= times[ticket]) }
      if trailing {
        #expect(outcome.refused.isEmpty)
        #expect(outcome.admittedAt[times.count - 1] != nil, "the last offer goes through")
      } else {
        #expect(outcome.superseded.isEmpty)
        var last: Int?
        for (ticket, time) in times.enumerated() {
          let expected = last.map { time - $0 >= interval } ?? true
          #expect((outcome.admittedAt[ticket] == time) == expected, "ticket \(ticket) at \(time)")
          if expected { last = time }
        }
      }
      if leading, let first = times.first { #expect(outcome.admittedAt[0] == first) }
    }
  }

  /// Latest, with each admitted ticket ending after a random delay: a ticket is superseded
  /// exactly when a newer one arrives before it ends.
  @Test func latestSupersedesExactlyWhatIsStillPending() async {
    await propertyCheck(count: 300, input: Self.gaps, Gen.int(in: 0...300).array(of: 40)) {
      gaps, delays in
      let times = Self.times(gaps)
      var machine = AdmissionStateMachine<String, Int>()
      var pendingUntil: [Int: Int] = [:]  // admitted ticket -> when it ends
      var superseded: Set<Int> = []
      for (ticket, time) in times.enumerated() {
        for (done, end) in pendingUntil where end <= time {
          machine.ended(done, key: "k")
          pendingUntil[done] = nil
        }
        let decision = machine.offer(ticket, key: "k", policy: .latest, now: .milliseconds(time))
        #expect(decision.admitted == ticket)
        if let old = decision.superseded {
          superseded.insert(old)
          pendingUntil[old] = nil
        }
        pendingUntil[ticket] = time + delays[ticket % delays.count]
      }
      let model = Set(
        times.indices.dropLast().filter { ticket in
          times[ticket + 1] < times[ticket] + delays[ticket % delays.count]
        })
      #expect(superseded == model)
    }
  }
}
