import { onPath, type OsUser } from './os-user.js';

/**
 * How the embedded PostgreSQL's programs are started: the program and the arguments put before
 * its own. util-linux's `setpriv` does two things Node's spawn cannot:
 *  - `--pdeathsig SIGINT`: the kernel sends the server a fast shutdown when the Node process dies,
 *    even by SIGKILL or the OOM killer, so no orphaned server holds the data folder;
 *  - as root, it runs the server as an unprivileged user (PostgreSQL refuses root), keeping only
 *    CAP_DAC_READ_SEARCH so the server can reach a DATA_DIR under a private home such as /root
 *    without anyone loosening that folder's permissions.
 * Without setpriv (macOS) the programs run directly and a left-over server is found and waited
 * for at the next start instead.
 */
export interface Launcher {
  readonly command: (program: string, args: readonly string[]) => { file: string; args: string[] };
  /** The user the server runs as when we are root, for chown of its folders. */
  readonly osUser: OsUser | undefined;
}

export async function createLauncher(osUser: OsUser | undefined): Promise<Launcher> {
  const setpriv = await onPath('setpriv');
  if (osUser && !setpriv) {
    throw new Error(
      'running as root needs util-linux `setpriv` to start PostgreSQL as an unprivileged user (or run memstream as a normal user)',
    );
  }
  const prefix = !setpriv
    ? []
    : [
        ...(osUser
          ? [
              `--reuid=${osUser.uid}`,
              `--regid=${osUser.gid}`,
              '--clear-groups',
              '--inh-caps=+dac_read_search',
              '--ambient-caps=+dac_read_search',
            ]
          : []),
        '--pdeathsig',
        'SIGINT',
        '--',
      ];
  return {
    osUser,
    command: (program, args) =>
      setpriv ? { file: setpriv, args: [...prefix, program, ...args] } : { file: program, args: [...args] },
  };
}
