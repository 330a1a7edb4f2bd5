// Types for floor.mjs, the raw client the bench measures buddy against.

/** One status read (identify, mint, GET) against the gateway at `socketPath` for the real home `home`. */
export declare const rawRead: (socketPath: string, home: string) => Promise<boolean>

/**
 * The identify-once protocol: identify at the first read and after a refused mint, then one mint and one GET per read,
 * each after C1's three file-system calls (unchecked) when `walks`.
 */
export declare const identifyOnceReader: (socketPath: string, home: string, walks?: boolean) => () => Promise<boolean>

/** One session-ticket exchange with the given params: the ticket, or undefined when refused. */
export declare const mintOnce: (
  socketPath: string,
  params: { readonly profile_id: string; readonly instance_id: string; readonly purpose: string }
) => Promise<string | undefined>
