import Foundation

#if FUZZING
/// libFuzzer's entry point (built with `-sanitize=fuzzer -DFUZZING`, `make fuzz`): the target named by
/// `WALLETOPS_FUZZ_TARGET` gets each input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzEntry.target(bytes)
    return 0
}

/// libFuzzer's driver (in the `-sanitize=fuzzer` runtime, LLVM 11 and later).
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// The executable's entry: SwiftPM links an executable target's `main` to `<module>_main`, so libFuzzer's
/// own `main` is not used; this one hands the arguments to libFuzzer's driver.
@_cdecl("walletops_fuzz_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { data, size in fuzzOneInput(data, size) }
}

enum FuzzEntry {
    static let target: @Sendable ([UInt8]) -> Void = {
        let name = ProcessInfo.processInfo.environment["WALLETOPS_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTargets.all[name] else {
            FileHandle.standardError.write(
                Data("set WALLETOPS_FUZZ_TARGET to one of \(FuzzTargets.all.keys.sorted())\n".utf8))
            exit(64)
        }
        return target
    }()
}
#else
/// Without libFuzzer: replays files through a target, `walletops-fuzz <target> <file or folder>...`, so
/// the seeds and every crash kept as a regression run in an ordinary build and in the tests.
@main
enum FuzzReplay {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let name = arguments.first, let target = FuzzTargets.all[name] else {
            print("usage: walletops-fuzz <\(FuzzTargets.all.keys.sorted().joined(separator: "|"))> <file or folder>...")
            exit(64)
        }
        var count = 0
        for path in arguments.dropFirst() {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                print("no such file: \(path)")
                exit(66)
            }
            let files =
                isFolder.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { path + "/" + $0 }
                : [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                target([UInt8](data))
                count += 1
            }
        }
        print("\(name): \(count) inputs replayed")
    }
}
#endif
