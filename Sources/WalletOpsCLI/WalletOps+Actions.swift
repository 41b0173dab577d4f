extension WalletOps {
    /// The actions playbooks may use: the built-ins, plus what other modules register (the jobs
    /// layer adds `wallet.create` and friends here). Every run command and `validate` read it.
    public static var actions: ActionRegistry { .builtIn }
}
