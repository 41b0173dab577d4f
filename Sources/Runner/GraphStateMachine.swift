/// The step graph as a pure state machine: events in, commands out, no I/O and no time.
///
/// A step starts when all its needs have finished successfully. A step "fails" when it ends with any
/// failed item (rejected items do not fail a step: they are bad input, reported apart); its dependents,
/// and theirs, are then skipped. After `stop`, no new step starts; the run finishes when the running
/// ones return.
struct GraphStateMachine {
    enum Status: Equatable { case waiting, running, succeeded, failed, skipped }

    enum Event: Equatable {
        case start
        case stepFinished(Int, succeeded: Bool)
        case stop
    }

    enum Command: Equatable {
        case startStep(Int)
        case skipStep(Int, because: String)
        case finish
    }

    private let ids: [String]
    private let needs: [[Int]]
    private(set) var status: [Status]
    private var stopping = false
    private var finished = false

    init(steps: [(id: String, needs: [String])]) {
        ids = steps.map(\.id)
        let indexByID = Dictionary(steps.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        needs = steps.map { step in step.needs.compactMap { indexByID[$0] } }
        status = Array(repeating: .waiting, count: steps.count)
    }

    mutating func handle(_ event: Event) -> [Command] {
        guard !finished else { return [] }
        switch event {
        case .start:
            break
        case .stepFinished(let index, let succeeded):
            status[index] = succeeded ? .succeeded : .failed
        case .stop:
            stopping = true
        }
        var commands: [Command] = []
        if !stopping {
            var changed = true
            while changed {
                changed = false
                for index in status.indices where status[index] == .waiting {
                    let needStatus = needs[index].map { status[$0] }
                    if let bad = needs[index].first(where: { status[$0] == .failed || status[$0] == .skipped }) {
                        status[index] = .skipped
                        let why = status[bad] == .failed ? "failed" : "was skipped"
                        commands.append(.skipStep(index, because: "need '\(ids[bad])' \(why)"))
                        changed = true
                    } else if needStatus.allSatisfy({ $0 == .succeeded }) {
                        status[index] = .running
                        commands.append(.startStep(index))
                    }
                }
            }
        }
        if !status.contains(.running) && (stopping || !status.contains(.waiting)) {
            finished = true
            commands.append(.finish)
        }
        return commands
    }
}
