import Foundation
internal import ScryptKernel
import Synchronization

/// scrypt (RFC 7914), as Ethereum keystore V3 files with `"kdf": "scrypt"` use it.
///
/// PBKDF2-HMAC-SHA256 (OpenSSL) around our ROMix (the `ScryptKernel` module). It accepts every
/// parameter set real wallet files use (for example n = 262144, r = 1, p = 8, which OpenSSL 3.0's own
/// scrypt refuses), and takes its memory from a ``Workspace`` that a caller deriving many keys keeps
/// between derivations. `derive` blocks the calling thread for as long as the cost demands; from async
/// code use `deriveInBackground`, which runs on a dedicated thread instead of the cooperative pool.
public enum Scrypt {
    /// One derivation at a time: keeps memory within one `maxMemory` and leaves the pool free.
    private static let queue = DispatchQueue(label: "walletops.scrypt", qos: .userInitiated)

    /// The default memory bound: 1 GiB, above geth's standard n = 2^18, r = 8 (256 MiB).
    public static let defaultMaxMemory = 1 << 30

    /// The memory scrypt needs for these parameters: 128 * r * (n + p) bytes, or nil on overflow.
    ///
    /// This is the bound callers check (the figure RFC 7914 and keystore tools quote); a derivation also
    /// holds two working blocks (256 * r bytes, 2 KiB at r = 8) beside it.
    public static func memoryRequired(n: Int, r: Int, p: Int) -> Int? {
        let (np, o1) = n.addingReportingOverflow(p)
        let (rr, o2) = (128).multipliedReportingOverflow(by: r)
        let (total, o3) = rr.multipliedReportingOverflow(by: np)
        return o1 || o2 || o3 ? nil : total
    }

    /// Derives `length` bytes from `password` and `salt`.
    ///
    /// - Parameters:
    ///   - n: CPU/memory cost, a power of two greater than 1.
    ///   - r: block size, at least 1.
    ///   - p: parallelisation, at least 1, with r * p < 2^30.
    ///   - length: output length in bytes, at least 1.
    ///   - maxMemory: the most memory, in bytes, the caller allows (`128 * r * (n + p)` must fit).
    ///   - workspace: the memory to work in; by default a fresh one, unmapped when the derivation ends.
    /// - Throws: `CryptoError.invalidParameter` for malformed parameters; `.memoryLimitExceeded` when
    ///   the parameters need more than `maxMemory` or the system has no memory to map.
    public static func derive(
        password: SecretBytes, salt: some ContiguousBytes, n: Int, r: Int, p: Int, length: Int,
        maxMemory: Int = defaultMaxMemory, workspace: Workspace? = nil
    ) throws -> SecretBytes {
        let scratchBytes = try checkedScratch(n: n, r: r, p: p, length: length, maxMemory: maxMemory)
        let blockBytes = 128 * r
        return try (workspace ?? Workspace()).withScratch(bytes: scratchBytes) { scratch in
            let blocks = try SecretBytes(count: p * blockBytes) { buffer in
                try initialBlocks(password: password, salt: salt, into: buffer)
                for block in 0..<p { ROMix.mix(buffer.baseAddress! + block * blockBytes, n: n, r: r, scratch: scratch) }
            }
            return try blocks.withUnsafeBytes { try finalKey(password: password, blocks: $0, length: length) }
        }
    }

    /// One derivation's inputs, for ``derivePair(_:_:maxMemory:workspaces:)``.
    public struct Request: Sendable {
        public var password: SecretBytes
        public var salt: [UInt8]
        public var n: Int
        public var r: Int
        public var p: Int
        public var length: Int

        public init(password: SecretBytes, salt: [UInt8], n: Int, r: Int, p: Int, length: Int) {
            self.password = password
            self.salt = salt
            self.n = n
            self.r = r
            self.p = p
            self.length = length
        }
    }

    /// Two derivations with the same n and r at once, on this thread, each in its own workspace.
    ///
    /// ROMix spends its time waiting on its own previous step, so two instances run interleaved in the
    /// halves of wider vectors take about the time of one (`ROMix.mixPair`; docs/bench.md "Keystore
    /// files"). The p ROMix instances of both derivations are taken two at a time.
    /// - Throws: what `derive` throws for either request; `.invalidParameter` when n or r differ.
    public static func derivePair(
        _ first: Request, _ second: Request, maxMemory: Int = defaultMaxMemory, workspaces: (Workspace, Workspace)
    ) throws -> (SecretBytes, SecretBytes) {
        guard first.n == second.n, first.r == second.r else {
            throw CryptoError(.invalidParameter, "scrypt: a pair needs the same n and r")
        }
        precondition(workspaces.0 !== workspaces.1, "scrypt: a pair needs two workspaces")
        let (n, r) = (first.n, first.r)
        let scratchBytes = try checkedScratch(
            n: n, r: r, p: first.p, length: first.length, maxMemory: maxMemory)
        _ = try checkedScratch(n: n, r: r, p: second.p, length: second.length, maxMemory: maxMemory)
        let blockBytes = 128 * r
        let firstBytes = first.p * blockBytes
        return try workspaces.0.withScratch(bytes: scratchBytes) { scratch0 in
            try workspaces.1.withScratch(bytes: scratchBytes) { scratch1 in
                // Both derivations' blocks in one secret buffer, first's then second's, mixed two at a time.
                let blocks = try SecretBytes(count: (first.p + second.p) * blockBytes) { buffer in
                    try initialBlocks(
                        password: first.password, salt: first.salt, into: .init(rebasing: buffer[..<firstBytes]))
                    try initialBlocks(
                        password: second.password, salt: second.salt, into: .init(rebasing: buffer[firstBytes...]))
                    let count = first.p + second.p
                    var block = 0
                    while block + 1 < count {
                        ROMix.mixPair(
                            buffer.baseAddress! + block * blockBytes, buffer.baseAddress! + (block + 1) * blockBytes,
                            n: n, r: r, scratch: (scratch0, scratch1))
                        block += 2
                    }
                    if block < count {
                        ROMix.mix(buffer.baseAddress! + block * blockBytes, n: n, r: r, scratch: scratch0)
                    }
                }
                return try blocks.withUnsafeBytes { all in
                    (
                        try finalKey(
                            password: first.password, blocks: .init(rebasing: all[..<firstBytes]), length: first.length),
                        try finalKey(
                            password: second.password, blocks: .init(rebasing: all[firstBytes...]),
                            length: second.length)
                    )
                }
            }
        }
    }

    /// The scratch bytes of one ROMix instance, after checking the parameters against RFC 7914 and
    /// `maxMemory`.
    private static func checkedScratch(n: Int, r: Int, p: Int, length: Int, maxMemory: Int) throws -> Int {
        guard n > 1, n & (n - 1) == 0 else {
            throw CryptoError(.invalidParameter, "scrypt: n = \(n) is not a power of two greater than 1")
        }
        let rp = r.multipliedReportingOverflow(by: p)
        guard r >= 1, p >= 1, !rp.overflow, rp.partialValue < 1 << 30 else {
            throw CryptoError(.invalidParameter, "scrypt: r = \(r), p = \(p) are out of range (r * p < 2^30)")
        }
        guard length >= 1 else { throw CryptoError(.invalidParameter, "scrypt: length must be at least 1") }
        guard let needed = memoryRequired(n: n, r: r, p: p), needed <= maxMemory,
            let scratchBytes = ROMix.scratchBytes(n: n, r: r)
        else {
            throw CryptoError(
                .memoryLimitExceeded,
                "scrypt: n = \(n), r = \(r), p = \(p) need 128*r*(n+p) = \(memoryRequired(n: n, r: r, p: p).map(String.init) ?? "too many") bytes, above the limit of \(maxMemory)"
            )
        }
        return scratchBytes
    }

    /// B = PBKDF2(P, S, 1, p * 128 * r), written into `blocks` (p * 128 * r bytes).
    private static func initialBlocks(
        password: SecretBytes, salt: some ContiguousBytes, into blocks: UnsafeMutableRawBufferPointer
    ) throws {
        try withSecretBytes(password) { passwordPointer, passwordCount in
            try withInputBytes(salt) { saltPointer, saltCount in
                try PBKDF2.sha256(
                    password: UnsafeRawBufferPointer(start: passwordPointer, count: passwordCount),
                    salt: UnsafeRawBufferPointer(start: saltPointer, count: saltCount), iterations: 1, into: blocks)
            }
        }
    }

    /// DK = PBKDF2(P, B, 1, length), B being the mixed blocks.
    private static func finalKey(password: SecretBytes, blocks: UnsafeRawBufferPointer, length: Int) throws
        -> SecretBytes
    {
        try SecretBytes(count: length) { out in
            try withSecretBytes(password) { passwordPointer, passwordCount in
                try PBKDF2.sha256(
                    password: UnsafeRawBufferPointer(start: passwordPointer, count: passwordCount), salt: blocks,
                    iterations: 1, into: out)
            }
        }
    }

    /// `derive` run on a dedicated serial queue, so it never stalls Swift's cooperative thread pool.
    ///
    /// Derivations queue behind one another. Cancellation is checked before the work starts; a
    /// derivation that has started runs to completion.
    /// - Throws: what `derive` throws, or `CancellationError`.
    public static func deriveInBackground(
        password: SecretBytes, salt: some ContiguousBytes, n: Int, r: Int, p: Int, length: Int,
        maxMemory: Int = defaultMaxMemory
    ) async throws -> SecretBytes {
        try Task.checkCancellation()
        let saltBytes = salt.withUnsafeBytes { Array($0) }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(
                    with: Result {
                        try derive(
                            password: password, salt: saltBytes, n: n, r: r, p: p, length: length, maxMemory: maxMemory)
                    })
            }
        }
    }
}

extension Scrypt {
    /// Memory for scrypt derivations, kept from one to the next.
    ///
    /// Fresh memory per derivation (what libsodium's scrypt maps each call) costs the kernel a fault and a
    /// zeroed page for every page of it, and two cores faulting at once wait on each other (docs/bench.md
    /// "Keystore files" has the figures). A workspace maps its memory on first use, keeps it, maps a larger
    /// region when parameters need more, and unmaps it when it goes away. Derivations through one workspace
    /// run one at a time (a second waits for the first). The memory holds values derived from passwords, so
    /// it is left out of core dumps.
    public final class Workspace: Sendable {
        /// The region as plain numbers, so the mutex holds only Sendable state.
        private struct Mapping {
            var address = 0
            var bytes = 0
        }

        private let mapping = Mutex(Mapping())

        /// Whether this workspace has the kernel fill its memory when it maps it (`MAP_POPULATE`, Linux) rather
        /// than fault it in page by page as ROMix first writes it. Why: one pass of the kernel made the first
        /// derivations of an import faster and even (docs/bench.md "Choices and what they measured").
        public let prefaultsMemory: Bool

        /// A workspace that maps nothing until its first derivation.
        ///
        /// - Parameter prefaultsMemory: see ``prefaultsMemory``; by default ``prefaultsMemoryByDefault``.
        public init(prefaultsMemory: Bool = Workspace.prefaultsMemoryByDefault) {
            self.prefaultsMemory = prefaultsMemory
        }

        /// The default of ``prefaultsMemory`` for new workspaces: true unless switched off. A tuning mechanism
        /// deep in a primitive, so one process-wide switch: an executable sets it once at startup, before any
        /// derivation (the command line from `WALLETOPS_TUNING_OFF=scrypt-prefault`; docs/bench.md "Tuning
        /// mechanisms and how to switch them off").
        public static var prefaultsMemoryByDefault: Bool {
            get { prefaultSwitch.load(ordering: .relaxed) }
            set { prefaultSwitch.store(newValue, ordering: .relaxed) }
        }
        private static let prefaultSwitch = Atomic<Bool>(true)

        deinit {
            mapping.withLock { Self.unmap(&$0) }
        }

        /// The bytes mapped now: 0 before the first derivation, then the most any derivation needed.
        public var mappedBytes: Int { mapping.withLock { $0.bytes } }

        /// Runs `body` with at least `bytes` of page-aligned memory, holding the workspace meanwhile.
        func withScratch<R>(bytes: Int, _ body: (UnsafeMutableRawPointer) throws -> R) throws -> R {
            try mapping.withLock { mapping in
                if mapping.bytes < bytes {
                    Self.unmap(&mapping)
                    mapping.address = Int(bitPattern: try Self.map(bytes, prefault: prefaultsMemory))
                    mapping.bytes = bytes
                }
                return try body(UnsafeMutableRawPointer(bitPattern: mapping.address)!)
            }
        }

        private static func map(_ bytes: Int, prefault: Bool) throws -> UnsafeMutableRawPointer {
            #if os(Linux)
            let flags = MAP_PRIVATE | MAP_ANONYMOUS | (prefault ? MAP_POPULATE : 0)
            #else
            let flags = MAP_PRIVATE | MAP_ANONYMOUS
            #endif
            let base = mmap(nil, bytes, PROT_READ | PROT_WRITE, flags, -1, 0)
            guard let base, base != UnsafeMutableRawPointer(bitPattern: -1) else {
                throw CryptoError(.memoryLimitExceeded, "scrypt: could not map \(bytes) bytes of memory")
            }
            #if os(Linux)
            _ = madvise(base, bytes, MADV_DONTDUMP)
            #endif
            return base
        }

        /// Unmaps the region; the kernel zeroes its pages before any reuse, so they need no wipe here.
        private static func unmap(_ mapping: inout Mapping) {
            if let base = UnsafeMutableRawPointer(bitPattern: mapping.address) { munmap(base, mapping.bytes) }
            mapping = Mapping()
        }
    }
}
