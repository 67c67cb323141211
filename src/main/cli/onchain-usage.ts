/*
 * --help of the chain's commands (`nps onchain`, `nps chains rpc`, `nps tokens ignore`), apart from
 * the commands themselves so that --help loads none of the service.
 */

export const onchainUsage = `npm run nps -- onchain check [--wallet WALLET] [--from DATE] [--to DATE] [--time-zone Z] [--restart] [--json] [--data-dir D]
npm run nps -- onchain balance --wallet WALLET --at DATE [--time-zone Z] [--json] [--data-dir D]
  check: ask each chain's node (nps chains rpc) about every ledger record in scope that has a hash
  (the wallet's, or every wallet's, created from --from to --to) and say of each: agrees; differs
  (naming the fields: amount, to, token, status, fee); pending (fewer confirmations than the chain's
  confirming_threshold); not_found (the node never saw the hash); unchecked (no node for the chain,
  a chain that cannot be read, or the node failed: with the reason). differs and not_found open
  exceptions of kind onchain in the queue; a later check that agrees resolves them. A check stopped
  (Ctrl-C, the service closed) resumes where it stopped when run again with the same scope;
  --restart starts over. --json prints summary {agrees, differs, pending, not_found, unchecked} and
  the items. Exit status 1 when anything differs, is pending or not found.
  balance: the wallet's balances on each chain it has an address on, at the last block at or before
  DATE (the end of the day, in --time-zone), beside the ledger's: the coin and each catalogue token
  (balanceOf at that block: a node keeping old state, an archive node). A difference opens a
  balance exception. Exit status 1 when a balance differs.
  What goes to the node: the records' hashes, the wallet's addresses, block numbers and the tokens'
  contracts (docs/onchain.md).`;

export const chainsRpcUsage = `npm run nps -- chains rpc [CHAIN_ID] [--json] [--data-dir D]
npm run nps -- chains rpc CHAIN_ID URL|- [--data-dir D]
npm run nps -- chains rpc CHAIN_ID --clear [--data-dir D]
  The node a chain's records are checked against (nps onchain). Setting one asks the node its chain
  id (EVM eth_chainId; TRON its genesis block) and refuses a node of another chain, naming both ids.
  URL is http(s); a key in its path, query or user part stays in the data folder (nodes.json, mode
  0600; sealed with the system's keychain in the desktop app), never shown whole, never on /nps,
  never in the log. "-" reads the URL from standard input (out of the shell's history). For TronGrid,
  give the API key as the user part: https://KEY@api.trongrid.io. Without URL: the chains' nodes, masked.`;

export const tokensIgnoreUsage = `npm run nps -- tokens ignore CHAIN_ID --contract ADDRESS [--symbol S] [--name N] [--data-dir D]
npm run nps -- tokens unignore CHAIN_ID --contract ADDRESS [--data-dir D]
npm run nps -- tokens ignored [--chain-id C] [--json] [--data-dir D]
  Ignore a token contract (spam airdropped to the wallet): an import skips its rows, counts them and
  lists them in its report, instead of rejecting them as an unknown token. Adding the token undoes it.`;
