/** One gRPC client per address, made on first use and kept; close() closes them all. */
export class ClientCache<C extends { close(): void }> {
  private readonly clients = new Map<string, C>();

  constructor(private readonly create: (address: string) => C) {}

  get(address: string): C {
    let client = this.clients.get(address);
    if (!client) {
      client = this.create(address);
      this.clients.set(address, client);
    }
    return client;
  }

  close(): void {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }
}
