import Playbook
import SQLiteKit

/// Placeholder for the task-graph engine (issue 7).
public enum RunnerInfo {
    public static let name = "runner"
}
