/**
 * An instance's part in the application as a whole, beside its own tasks: the task placement it
 * runs when it leads the group (placement.ts), what it tells the group about itself (its query
 * endpoint and how far its copies lag), the standby and warm-up copies the assignment gives it
 * (standby.ts), and interactive queries (query/). StreamsApp owns one and calls it at start, on
 * every assignment, when tasks start and stop, and at close.
 */
import type { GroupConsumer, GroupConsumerOptions, Tide } from '../../client/index';
import type { Logger } from '../../services/common/logger';
import type { StateStore } from '../state/stores';
import type { StoreDef } from '../topology/nodes';
import type { Topology } from '../topology/topology';
import type { TaskAssignorConfig } from './assignor';
import { decodeAssignmentInfo, encodeMemberInfo, type AssignmentInfo } from './membership-data';
import { streamsAssignor, taskLayout } from './placement';
import { QueryClients } from './query/clients';
import { QueryRouter } from './query/router';
import { QueryServer, type InstanceView, type QueryServerOptions } from './query/server';
import { StandbyTasks, type StoreSlot } from './standby';
import type { ChangeListener } from '../state/stores';

/** Kafka Streams' default: a copy within 10,000 records counts as caught up. */
export const DEFAULT_ACCEPTABLE_RECOVERY_LAG = 10_000;
export const DEFAULT_MAX_WARMUP_REPLICAS = 2;
/** Reports of caught-up copies are coalesced over this long (each one makes the leader assign again). */
const REPORT_DEBOUNCE_MS = 500;

export interface ReplicasOptions {
  tide: Tide;
  topology: Topology;
  partitions: () => ReadonlyMap<string, number>;
  readCommitted: boolean;
  stateDir?: string;
  logger: Logger;
  placement: TaskAssignorConfig;
  queryServer?: QueryServerOptions;
  createStore(def: StoreDef, taskId: string, onChange: ChangeListener): StateStore;
  /** The store of a task active and restored here. */
  localStore(taskId: string, store: string): StateStore | undefined;
  /** A global table's store here, once loaded. */
  globalStore(store: string): StateStore | undefined;
  /** Task ids active here now. */
  activeTasks(): string[];
}

export class Replicas {
  readonly standbys: StandbyTasks;
  readonly router: QueryRouter;
  private readonly server?: QueryServer;
  private readonly clients: QueryClients;
  private info: AssignmentInfo = { active: [], standby: [], warmup: [], owners: new Map() };
  private member?: GroupConsumer;
  private reportTimer?: NodeJS.Timeout;

  constructor(private readonly o: ReplicasOptions) {
    const storesByTask = (taskId: string): StoreDef[] => {
      const sub = Number(taskId.slice(0, taskId.indexOf('_')));
      return o.topology.subtopologies.find((s) => s.id === sub)?.stores.filter((d) => d.logged) ?? [];
    };
    this.standbys = new StandbyTasks({
      tide: o.tide,
      applicationId: o.topology.applicationId,
      readCommitted: o.readCommitted,
      stateDir: o.stateDir,
      logger: o.logger,
      storesOf: storesByTask,
      createStore: o.createStore,
      acceptableRecoveryLag: o.placement.acceptableRecoveryLag,
      isActive: (taskId) => o.activeTasks().includes(taskId),
      onCaughtUpChanged: () => this.scheduleReport(),
    });
    this.clients = new QueryClients(
      o.topology.applicationId,
      o.queryServer?.tls,
      o.logger,
      o.queryServer?.auth?.tokenFile,
    );
    this.router = new QueryRouter({
      topology: o.topology,
      partitions: o.partitions,
      localStore: o.localStore,
      globalStore: o.globalStore,
      standbyStore: (task, store) => this.standbys.store(task, store),
      owners: () => this.info.owners,
      self: () => this.endpoint,
      clients: this.clients,
    });
    if (o.queryServer)
      this.server = new QueryServer(o.topology.applicationId, this.router, () => this.instances(), o.logger);
  }

  /** This instance's query endpoint ('' without a query server). */
  get endpoint(): string {
    return this.server?.endpoint ?? '';
  }

  /** Starts the query server (before joining, so the endpoint goes out with the first join). */
  async start(): Promise<void> {
    if (this.server && this.o.queryServer) await this.server.start(this.o.queryServer);
  }

  /** The group consumer's options for the `client` assignor. */
  groupOptions(): Pick<
    GroupConsumerOptions,
    'assignor' | 'clientAssignor' | 'userData' | 'onAssignmentData'
  > {
    return {
      assignor: 'client',
      clientAssignor: streamsAssignor(
        () => taskLayout(this.o.topology, this.o.partitions()),
        this.o.placement,
      ),
      userData: this.userData(),
      onAssignmentData: (data) => this.assigned(data),
    };
  }

  attach(member: GroupConsumer): void {
    this.member = member;
  }

  /** The application's instances as this one knows them (from the latest assignment). */
  instances(): InstanceView[] {
    const byEndpoint = new Map<string, InstanceView>();
    for (const [task, endpoint] of this.info.owners) {
      const view = byEndpoint.get(endpoint) ?? { endpoint, activeTasks: [], standbyTasks: [] };
      view.activeTasks.push(task);
      byEndpoint.set(endpoint, view);
    }
    const self = byEndpoint.get(this.endpoint);
    if (self) self.standbyTasks = this.standbys.taskIds();
    return [...byEndpoint.values()].sort((a, b) => (a.endpoint < b.endpoint ? -1 : 1));
  }

  /** Tasks active here changed (created or closed): copies follow the assignment again. */
  tasksChanged(): void {
    this.applyInfo();
  }

  /** A task stopped being active here after a clean commit: its stores become a copy. */
  adopt(taskId: string, slots: StoreSlot[]): void {
    this.standbys.adopt(taskId, slots);
  }

  async close(): Promise<void> {
    if (this.reportTimer) clearTimeout(this.reportTimer);
    await this.standbys.close();
    await this.server?.stop();
    this.clients.close();
  }

  private assigned(data: Buffer): void {
    this.info = decodeAssignmentInfo(data);
    this.applyInfo();
  }

  private applyInfo(): void {
    // Tasks coming to this instance keep (or start) a copy until they arrive: the restore then
    // reads only what the copy has not applied.
    const keep = [...this.info.standby, ...this.info.warmup, ...this.info.active];
    this.standbys.set(keep, new Set(this.o.activeTasks()));
  }

  private userData(): Buffer {
    // The assignor knows active tasks from the owned partitions; their lag would only change the
    // user data (a new generation under the client assignor) while a task arrives, as when a
    // static member restarts, which must rebalance nothing.
    const active = new Set(this.o.activeTasks());
    const lags = new Map([...this.standbys.lags()].filter(([taskId]) => !active.has(taskId)));
    return encodeMemberInfo({ endpoint: this.endpoint, lags });
  }

  private scheduleReport(): void {
    if (this.reportTimer) return;
    this.reportTimer = setTimeout(() => {
      this.reportTimer = undefined;
      this.member?.setUserData(this.userData());
    }, REPORT_DEBOUNCE_MS);
  }
}
