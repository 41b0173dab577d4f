import Foundation
import Runner
import Testing

@testable import WalletOpsCLI

/// `WALLETOPS_TUNING_OFF`: the names it takes, what each switches off, and a typo refused with exit 64.
@Suite struct TuningSwitchesTests {
    static func switches(_ value: String) throws(CLIError) -> TuningSwitches {
        try TuningSwitches(environment: [TuningSwitches.variable: value])
    }

    @Test func unsetOrEmptyLeavesEveryMechanismOn() throws {
        for tuning in [try TuningSwitches(environment: [:]), try Self.switches(""), try Self.switches(" , ")] {
            #expect(tuning.off.isEmpty)
            #expect(tuning.coreStore == .default)
            #expect(tuning.immediateActions)
        }
    }

    @Test func namesAndAllSwitchMechanismsOff() throws {
        let some = try Self.switches("page-cache, immediate-actions")
        #expect(some.off == [.pageCache, .immediateActions])
        #expect(some.coreStore.pageCacheKibibytes == nil)
        #expect(some.coreStore.flushesOnOwnThread)
        #expect(some.coreStore.returnsFreedMemoryAfterBulkCommits)
        #expect(some.coreStore.checkpointsInBackground)
        #expect(!some.immediateActions)
        let all = try Self.switches("all")
        #expect(all.off == Set(TuningMechanism.allCases))
        #expect(all.coreStore.pageCacheKibibytes == nil)
        #expect(!all.coreStore.flushesOnOwnThread)
        #expect(!all.coreStore.returnsFreedMemoryAfterBulkCommits)
        #expect(!all.coreStore.checkpointsInBackground)
        #expect(!all.immediateActions)
        for mechanism in TuningMechanism.allCases {
            #expect(try Self.switches(mechanism.rawValue).off == [mechanism])
        }
    }

    @Test func anUnknownNameIsAUsageErrorNamingItAndTheKnownOnes() {
        do {
            _ = try Self.switches("heap-trim,heap-trimm")
            Issue.record("an unknown name was accepted")
        } catch {
            #expect(error.code == .usage)
            #expect(error.message.contains("'heap-trimm'"), "\(error.message)")
            for mechanism in TuningMechanism.allCases {
                #expect(error.message.contains(mechanism.rawValue), "\(error.message)")
            }
        }
    }

    /// In process: the command does not run, exit 64, the message names the unknown name.
    @Test func theCommandLineRefusesAnUnknownName() async {
        let result = await runInProcess(["--version"], environment: [TuningSwitches.variable: "page-cash"])
        #expect(result.status == 64, "\(result)")
        #expect(result.standardOutput.isEmpty, "\(result)")
        #expect(result.standardError.contains("unknown tuning mechanism 'page-cash'"), "\(result)")
        #expect(result.standardError.contains("known: heap-trim, flusher-thread, page-cache"), "\(result)")
        let fine = await runInProcess(["--version"], environment: [TuningSwitches.variable: "all"])
        #expect(fine.status == 0, "\(fine)")
    }

    /// The executable: an unknown name exits 64; with every mechanism off a run of no-op items completes.
    @Test func theExecutableRefusesAnUnknownNameAndRunsWithEverythingOff() throws {
        let refused = try BuiltBinary.run(["--version"], environment: [TuningSwitches.variable: "scrypt-prefault,nope"])
        #expect(refused.status == 64, "\(refused)")
        #expect(refused.standardError.contains("unknown tuning mechanism 'nope'"), "\(refused)")
        let space = try PlaybookWorkspace()
        try space.writeKeys("keys.csv", count: 50)
        try space.write(
            "ok.yaml",
            RunCommandEndToEndTests.playbook(name: "ok", step: "  - {id: work, action: noop, for_each: keys}"))
        let result = try space.run(["run", "ok.yaml"], environment: [TuningSwitches.variable: "all"])
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.contains("work  succeeded  50     50"), "\(result)")
    }

    /// The commands' job services carry the keystore pairing switch to the import and reconcile steps.
    @Test func theJobServicesCarryTheKeystorePairingSwitch() throws {
        let out = CapturedOutput()
        var context = Context(standardOutput: out, standardError: out)
        let arguments = try TestTree.parsed(["core", "init"])
        #expect(CoreCommandSupport.jobServices(arguments, context).keystoreDecryption.pairsDecryptions)
        context.tuning = try Self.switches("keystore-pairs")
        #expect(!CoreCommandSupport.jobServices(arguments, context).keystoreDecryption.pairsDecryptions)
    }

    /// The run commands open an SQLite run store with SQLite's default cache when `run-store-page-cache` is off.
    @Test func theRunHomeCarriesTheRunStoreCacheSwitch() throws {
        let out = CapturedOutput()
        var context = Context(standardOutput: out, standardError: out)
        let arguments = try TestTree.parsed(["core", "init"])
        #expect(RunHome(arguments, context: context).storePageCacheKibibytes == RunStore.sqlitePageCacheKibibytes)
        context.tuning = try Self.switches("run-store-page-cache")
        #expect(RunHome(arguments, context: context).storePageCacheKibibytes == nil)
    }
}
