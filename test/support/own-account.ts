// The account buddy takes itself to be running as, for a test run as root: buddy's own checks read
// `process.getuid()` (src/services/private-directory.ts `ownUid`), while the kernel goes on
// judging the test's real calls as root's. What only another account's checks decide (root's files
// taken from it, a `sudo` in a fix) is then seen in this process, where StrykerJS's coverage sees it;
// what the kernel decides for another account runs in a child (test/serve/support/mutant-child.ts).
/** Makes `process.getuid()` answer `uid` until the returned function puts it back. */
export const seemingAccount = (uid: number): () => void => {
  const real = process.getuid
  process.getuid = () => uid
  return () => {
    if (real === undefined) delete process.getuid
    else process.getuid = real
  }
}
