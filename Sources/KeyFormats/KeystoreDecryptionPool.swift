import Foundation
import Synchronization
public import WalletCrypto

/// Decrypts keystore files concurrently on dedicated threads, at most as many at once as the
/// machine has cores and memory for.
///
/// scrypt at geth's standard cost (n = 2^18, r = 8) needs 256 MiB and about half a second of one core,
/// so a run over thousands of keystores must bound both. The pool holds `maxConcurrent` slots;
/// a decryption takes one slot per `perJobMemory` bytes its KDF needs (at least one, at most all),
/// waits in FIFO order when the slots are taken, and runs on a thread of its own, never on Swift's
/// cooperative pool (STYLE.md "Concurrency").
///
/// Two decryptions per core: scrypt's ROMix waits on its own previous step, so two of them interleaved on
/// one thread (`Scrypt.derivePair`) take about the time of one. A one-slot scrypt decryption that finds
/// another with the same n and r waiting leaves with it on one thread; one that finds none waits up to
/// `pairingWait` for a partner and then runs alone. By default
/// `maxConcurrent = max(1, min(2 * cores, availableMemory / perJobMemory))`.
///
/// The pool keeps the memory scrypt works in: a decryption takes an idle ``Scrypt/Workspace`` (or makes
/// one) and, when it took one slot, gives it back, so a run over thousands of files maps its 256 MiB
/// regions once per slot instead of once per file. The kept memory stays within the slots' bound (at most
/// `maxConcurrent` workspaces of at most `perJobMemory` each: a heavier decryption's workspace is dropped)
/// and is unmapped when the pool goes away.
public final class KeystoreDecryptionPool: Sendable {
    /// The pool's limits.
    public struct Configuration: Sendable, Equatable {
        /// The number of slots: the most PBKDF2 or standard-scrypt decryptions at once.
        public var maxConcurrent: Int
        /// The memory one slot stands for.
        public var perJobMemory: Int
        /// The most memory one scrypt derivation may use; a keystore needing more is refused.
        public var maxScryptMemory: Int
        /// How long a scrypt decryption waits for a partner before it runs alone.
        public var pairingWait: Duration
        /// Whether scrypt decryptions of one n and r run in pairs (`EncryptedKeystore.decryptPair`); off
        /// (`WALLETOPS_TUNING_OFF=keystore-pairs`), each runs alone, to measure what the pairs still buy.
        public var pairsDecryptions: Bool

        /// Explicit limits (each at least 1).
        public init(
            maxConcurrent: Int, perJobMemory: Int = KeystoreDecryptionPool.defaultPerJobMemory,
            maxScryptMemory: Int = Scrypt.defaultMaxMemory, pairingWait: Duration = .milliseconds(10),
            pairsDecryptions: Bool = true
        ) {
            self.pairsDecryptions = pairsDecryptions
            self.maxConcurrent = max(1, maxConcurrent)
            self.perJobMemory = max(1, perJobMemory)
            self.maxScryptMemory = max(1, maxScryptMemory)
            self.pairingWait = max(.zero, pairingWait)
        }

        /// Limits from this machine: its active cores and available memory (the smaller of
        /// /proc/meminfo's MemAvailable and the cgroup v2 limit; cores alone when neither is readable).
        public static func automatic(
            perJobMemory: Int = KeystoreDecryptionPool.defaultPerJobMemory,
            maxScryptMemory: Int = Scrypt.defaultMaxMemory, pairsDecryptions: Bool = true
        ) -> Configuration {
            let cores = ProcessInfo.processInfo.activeProcessorCount
            let concurrency = KeystoreDecryptionPool.concurrency(
                cores: cores, availableMemory: SystemMemory.available(), perJobMemory: perJobMemory)
            return Configuration(
                maxConcurrent: concurrency, perJobMemory: perJobMemory, maxScryptMemory: maxScryptMemory,
                pairsDecryptions: pairsDecryptions)
        }
    }

    /// One slot's memory by default: scrypt n = 2^18, r = 8 (128 * r * (n + p) = 256 MiB) plus slack.
    public static let defaultPerJobMemory = 257 << 20

    /// `max(1, min(2 * cores, availableMemory / perJobMemory))`: two per core, for the pairs;
    /// `2 * cores` when memory is unknown.
    public static func concurrency(cores: Int, availableMemory: Int?, perJobMemory: Int) -> Int {
        let perCores = 2 * max(1, cores)
        let byMemory = availableMemory.map { $0 / max(1, perJobMemory) } ?? perCores
        return max(1, min(perCores, byMemory))
    }

    /// The limits in force.
    public let configuration: Configuration
    private let slots: AsyncSlots
    /// Workspaces of finished one-slot decryptions, ready for the next.
    private let idleWorkspaces = Mutex<[Scrypt.Workspace]>([])
    private let workspacesMade = Atomic<Int>(0)
    /// One-slot scrypt decryptions waiting for a partner.
    private let unpaired = Mutex<[Job]>([])
    private let nextJobID = Atomic<UInt64>(0)
    private let pairsMade = Atomic<Int>(0)
    /// Called on a decryption thread before its KDF runs, with the number of decryptions it runs (2 for a
    /// pair); tests hold decryptions there to see how many run at once.
    private let decryptionWillStart: (@Sendable (Int) -> Void)?

    /// A pool with `configuration` (by default sized from this machine).
    public convenience init(configuration: Configuration = .automatic()) {
        self.init(configuration: configuration, decryptionWillStart: nil)
    }

    init(configuration: Configuration, decryptionWillStart: (@Sendable (Int) -> Void)?) {
        self.configuration = configuration
        self.decryptionWillStart = decryptionWillStart
        slots = AsyncSlots(count: configuration.maxConcurrent)
    }

    /// The most slots in use at once so far (for tests and progress displays).
    public var peakSlotsInUse: Int { slots.peakInUse }

    /// The scrypt workspaces made so far (for tests: with reuse, at most the peak of one-slot decryptions).
    var workspacesCreated: Int { workspacesMade.load(ordering: .relaxed) }

    /// The decryptions run in pairs so far, counted once per pair (for tests).
    var pairsRun: Int { pairsMade.load(ordering: .relaxed) }

    /// The slots a keystore's decryption takes: one per `perJobMemory` of KDF memory, 1...maxConcurrent.
    public func weight(of keystore: EncryptedKeystore) -> Int {
        let memory = keystore.kdfMemory
        let perJob = configuration.perJobMemory
        let slotsNeeded = memory / perJob + (memory % perJob == 0 ? 0 : 1)
        return min(configuration.maxConcurrent, max(1, slotsNeeded))
    }

    /// Decrypts `keystore` with `password` once slots are free, on a dedicated thread.
    ///
    /// - Throws: `KeyFormatError` as ``EncryptedKeystore/decrypt(password:maxScryptMemory:workspace:)``
    ///   throws, or `CancellationError` if the task is cancelled while waiting for slots (a
    ///   decryption that has started runs to completion).
    public func decrypt(_ keystore: EncryptedKeystore, password: SecretBytes) async throws -> ParsedKey {
        // Refuse an oversized KDF before queueing: it would never be allowed to run.
        if refusesBeforeDeriving(keystore) {
            return try keystore.decrypt(password: password, maxScryptMemory: configuration.maxScryptMemory)
        }
        let weight = weight(of: keystore)
        try await slots.acquire(weight)
        defer { slots.release(weight) }
        let workspace = takeWorkspace()
        defer { if weight == 1 { idleWorkspaces.withLock { $0.append(workspace) } } }
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<ParsedKey, KeyFormatError>, Never>) in
            let job = Job(
                id: nextJobID.add(1, ordering: .relaxed).newValue, keystore: keystore, password: password,
                workspace: workspace, continuation: continuation)
            // With one slot no partner can come: no wait.
            if configuration.pairsDecryptions, weight == 1, configuration.maxConcurrent > 1,
                case .scrypt = keystore.kdf
            {
                offer(job)
            } else {
                start([job])
            }
        }
        return try result.get()
    }

    /// Whether `keystore`'s scrypt needs more memory than the pool allows: refused without deriving.
    private func refusesBeforeDeriving(_ keystore: EncryptedKeystore) -> Bool {
        guard case .scrypt = keystore.kdf else { return false }
        return keystore.kdfMemory > configuration.maxScryptMemory
    }

    /// A decryption that holds its slots and waits for a thread.
    private struct Job: Sendable {
        let id: UInt64
        let keystore: EncryptedKeystore
        let password: SecretBytes
        let workspace: Scrypt.Workspace
        let continuation: CheckedContinuation<Result<ParsedKey, KeyFormatError>, Never>

        func pairs(with other: Job) -> Bool {
            guard case .scrypt(let n, let r, _) = keystore.kdf, case .scrypt(let n2, let r2, _) = other.keystore.kdf
            else { return false }
            return n == n2 && r == r2
        }
    }

    /// Starts `job` with a waiting partner of the same n and r, or leaves it waiting `pairingWait` for one.
    private func offer(_ job: Job) {
        let partner: Job? = unpaired.withLock { waiting in
            if let index = waiting.firstIndex(where: { $0.pairs(with: job) }) { return waiting.remove(at: index) }
            waiting.append(job)
            return nil
        }
        if let partner {
            start([partner, job])
            return
        }
        let (seconds, attoseconds) = configuration.pairingWait.components
        let wait = DispatchTimeInterval.nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        DispatchQueue.global().asyncAfter(deadline: .now() + wait) { [self] in
            let alone = unpaired.withLock { waiting in
                waiting.firstIndex { $0.id == job.id }.map { waiting.remove(at: $0) }
            }
            if let alone { start([alone]) }
        }
    }

    /// Runs one job, or a pair through `EncryptedKeystore.decryptPair`, on a new thread.
    private func start(_ jobs: [Job]) {
        let limit = configuration.maxScryptMemory
        let willStart = decryptionWillStart
        if jobs.count == 2 { pairsMade.add(1, ordering: .relaxed) }
        let thread = Thread {
            willStart?(jobs.count)
            if jobs.count == 2 {
                let results = EncryptedKeystore.decryptPair(
                    (jobs[0].keystore, jobs[0].password), (jobs[1].keystore, jobs[1].password),
                    maxScryptMemory: limit, workspaces: (jobs[0].workspace, jobs[1].workspace))
                jobs[0].continuation.resume(returning: results.0)
                jobs[1].continuation.resume(returning: results.1)
            } else {
                for job in jobs {
                    job.continuation.resume(
                        returning: Result { () throws(KeyFormatError) -> ParsedKey in
                            try job.keystore.decrypt(
                                password: job.password, maxScryptMemory: limit, workspace: job.workspace)
                        })
                }
            }
        }
        thread.name = "walletops.keystore-decryption"
        thread.start()
    }

    private func takeWorkspace() -> Scrypt.Workspace {
        if let idle = idleWorkspaces.withLock({ $0.popLast() }) { return idle }
        workspacesMade.add(1, ordering: .relaxed)
        return Scrypt.Workspace()
    }

    /// Reads the keystore file at `path`, gets its password from `passwords` (by file name), and
    /// decrypts it: a record whose source is the file name and whose reference is `reference` (a
    /// directory's: ``DirectoryListing/Entry/reference``), else the name's
    /// (``DirectoryListing/defaultReference(forFileName:)``); refused when longer than 128 UTF-8 bytes.
    ///
    /// - Throws: only `CancellationError`; every other problem is the record's error.
    public func decryptFile(at path: String, passwords: PasswordSource, reference: String? = nil) async throws
        -> KeyRecord
    {
        try await decryptFileCountingDerivation(at: path, passwords: passwords, reference: reference).record
    }

    /// ``decryptFile(at:passwords:reference:)``, and whether the file's key derivation (scrypt or PBKDF2) ran,
    /// whatever its outcome (a wrong password derives too): the cost a resumed import must not pay again
    /// for a file it finished, so the import counts it.
    ///
    /// - Throws: only `CancellationError`; every other problem is the record's error.
    public func decryptFileCountingDerivation(at path: String, passwords: PasswordSource, reference: String? = nil)
        async throws -> (record: KeyRecord, derived: Bool)
    {
        let name = DirectoryListing.fileName(of: path)
        let reference = reference ?? DirectoryListing.defaultReference(forFileName: name)
        var derived = false
        do {
            try KeyParser.validateReference(reference)
            let keystore = try EncryptedKeystore(contentsOf: path)
            let password = try passwords.password(for: name)
            derived = !refusesBeforeDeriving(keystore)
            let key = try await decrypt(keystore, password: password)
            return (KeyRecord(source: name, file: path, reference: reference, result: .success(key)), derived)
        } catch let error as KeyFormatError {
            let record = KeyRecord(
                source: name, file: path, reference: reference,
                result: .failure(error.located(source: name, file: path)))
            return (record, derived)
        }
    }
}

/// Counting slots handed out in FIFO order to async waiters; cancellation removes a waiter.
final class AsyncSlots: Sendable {
    private struct Waiter {
        let id: UInt64
        let weight: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var free: Int
        var waiters: [Waiter] = []
        var cancelledBeforeWaiting: Set<UInt64> = []
        var nextID: UInt64 = 0
        var inUse = 0
        var peakInUse = 0
    }

    private let state: Mutex<State>

    init(count: Int) { state = Mutex(State(free: count)) }

    var peakInUse: Int { state.withLock { $0.peakInUse } }

    func acquire(_ weight: Int) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case granted, cancelled, queued }
                let outcome = state.withLock { state -> Outcome in
                    if state.cancelledBeforeWaiting.remove(id) != nil { return .cancelled }
                    if state.waiters.isEmpty && state.free >= weight {
                        state.free -= weight
                        state.inUse += weight
                        state.peakInUse = max(state.peakInUse, state.inUse)
                        return .granted
                    }
                    state.waiters.append(Waiter(id: id, weight: weight, continuation: continuation))
                    return .queued
                }
                switch outcome {
                case .granted: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .queued: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                if let index = state.waiters.firstIndex(where: { $0.id == id }) {
                    return state.waiters.remove(at: index)
                }
                state.cancelledBeforeWaiting.insert(id)
                return nil
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
        // A cancellation that arrived after the grant left a marker for a waiter that will never
        // come; drop it. The granted slots are returned by the caller's release.
        state.withLock { _ = $0.cancelledBeforeWaiting.remove(id) }
    }

    func release(_ weight: Int) {
        let granted = state.withLock { state -> [Waiter] in
            state.free += weight
            state.inUse -= weight
            var granted: [Waiter] = []
            while let first = state.waiters.first, first.weight <= state.free {
                state.waiters.removeFirst()
                state.free -= first.weight
                state.inUse += first.weight
                state.peakInUse = max(state.peakInUse, state.inUse)
                granted.append(first)
            }
            return granted
        }
        for waiter in granted { waiter.continuation.resume() }
    }
}

/// The memory this process may still use, for sizing the pool.
enum SystemMemory {
    /// min(MemAvailable, cgroup v2 memory.max - memory.current), or nil when neither is readable.
    static func available() -> Int? {
        var candidates: [Int] = []
        if let meminfo = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) {
            for line in meminfo.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                if fields.count >= 2, let kib = Int(fields[1]) { candidates.append(kib * 1024) }
            }
        }
        if let maxText = try? String(contentsOfFile: "/sys/fs/cgroup/memory.max", encoding: .utf8),
            let limit = Int(maxText.trimmingASCIIWhitespace())
        {
            let currentText = try? String(contentsOfFile: "/sys/fs/cgroup/memory.current", encoding: .utf8)
            let current = currentText.flatMap { Int($0.trimmingASCIIWhitespace()) } ?? 0
            candidates.append(max(0, limit - current))
        }
        return candidates.min()
    }
}
