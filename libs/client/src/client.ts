import { Admin } from './admin.js';
import { Ark } from './ark.js';
import { ConsoleReads } from './console.js';
import { EverMemOs } from './evermemos.js';
import { Http, type ClientOptions } from './http.js';
import { Kaos } from './kaos.js';
import { MemoryAgent } from './memory-agent.js';
import { MemoryService } from './memory-service.js';
import { Platform } from './platform.js';

/**
 * A memstream server's HTTP APIs, one property per family. Cheap to make: one per caller
 * (credentials are the client's), all sharing the runtime's fetch.
 */
export class MemstreamClient {
  readonly evermemos: EverMemOs;
  readonly ark: Ark;
  readonly memoryAgent: MemoryAgent;
  readonly memoryService: MemoryService;
  readonly kaos: Kaos;
  readonly platform: Platform;
  /** The admin and auditor API: for callers holding either role. */
  readonly admin: Admin;
  /** memstream's reads across families (the console's): any caller. */
  readonly console: ConsoleReads;

  constructor(readonly options: ClientOptions) {
    const http = new Http(options);
    this.evermemos = new EverMemOs(http);
    this.ark = new Ark(http);
    this.memoryAgent = new MemoryAgent(http);
    this.memoryService = new MemoryService(http);
    this.kaos = new Kaos(http);
    this.platform = new Platform(http);
    this.admin = new Admin(http);
    this.console = new ConsoleReads(http);
  }

  /** The same server as another caller. */
  as(credentials: Pick<ClientOptions, 'token' | 'apiKey' | 'kaosAgent'>): MemstreamClient {
    const { token: _token, apiKey: _apiKey, ...rest } = this.options;
    return new MemstreamClient({ ...rest, ...credentials });
  }
}
