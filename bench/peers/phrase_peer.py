#!/usr/bin/env python3
"""The recovery-phrase peer of issue 27: eth-account's HD wallet functions in 2 processes
(multiprocessing), each on its half of the phrases, deriving ACCOUNTS accounts of each phrase on
m/44'/60'/0'/0/i.

    phrase_peer.py PHRASES_FILE ACCOUNTS MODE

MODE from_mnemonic: Account.from_mnemonic(phrase, "", path) per account (the documented call, which
computes the seed again for every account); seed_once: the seed once per phrase
(eth_account.hdaccount.seed_from_mnemonic), then key_from_seed per account (the faster script).
Prints one line: "mode<TAB>accounts<TAB>phrases<TAB>seconds<TAB>phrases_per_s"."""
import multiprocessing
import sys
import time

from eth_account import Account
from eth_account.hdaccount import key_from_seed, seed_from_mnemonic

Account.enable_unaudited_hdwallet_features()


def work(args):
    phrases, accounts, mode = args
    addresses = 0
    for phrase in phrases:
        if mode == "from_mnemonic":
            for i in range(accounts):
                Account.from_mnemonic(phrase, "", f"m/44'/60'/0'/0/{i}")
                addresses += 1
        else:
            seed = seed_from_mnemonic(phrase, "")
            for i in range(accounts):
                Account.from_key(key_from_seed(seed, f"m/44'/60'/0'/0/{i}"))
                addresses += 1
    return addresses


def main():
    path, accounts, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    phrases = [line.strip() for line in open(path) if line.strip()]
    half = len(phrases) // 2
    with multiprocessing.Pool(2) as pool:
        start = time.perf_counter()
        done = sum(pool.map(work, [(phrases[:half], accounts, mode), (phrases[half:], accounts, mode)]))
        seconds = time.perf_counter() - start
    assert done == len(phrases) * accounts
    print(f"{mode}\t{accounts}\t{len(phrases)}\t{seconds:.3f}\t{len(phrases) / seconds:.1f}")


if __name__ == "__main__":
    main()
