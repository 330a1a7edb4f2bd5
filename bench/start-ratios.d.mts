// Types for start-ratios.mjs.

/** Each command's median start time over the first command's, the median over `rounds` hyperfine rounds of `runs` runs. */
export declare const startRatios: (commands: ReadonlyArray<string>, rounds: number, runs: number) => Array<number>
