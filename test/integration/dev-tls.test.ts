/**
 * `tide dev` with TLS (the tls* keys, as every service takes them): its broker and its group
 * coordinator listen on TLS, the coordinator reaches the broker over TLS, and the CLI works end to
 * end with `TIDE_TLS_CA`: create a topic, produce, consume in a group. A plain-text client is
 * refused. `npm run bench -- --tls` measures this set-up against plain text.
 */
import * as fs from 'fs';
import * as path from 'path';
import { makeCa, makeLeaf } from '../harness/certs';
import { runCli } from '../harness/cli';
import { makeTempDir, startTide, type TideProcess } from '../harness/processes';

jest.setTimeout(90_000);

let dir: string;
let node: TideProcess | undefined;

beforeAll(async () => {
  dir = makeTempDir('tide-dev-tls-');
  makeCa(dir, 'ca');
  makeLeaf(dir, 'ca', 'service', 'tide-dev');
  node = await startTide(['dev', '--data', path.join(dir, 'data'), '--port', '0'], {
    env: {
      TIDE_TLS_CERT_FILE: path.join(dir, 'service.crt'),
      TIDE_TLS_KEY_FILE: path.join(dir, 'service.key'),
      TIDE_TLS_CA_FILE: path.join(dir, 'ca.crt'),
    },
  });
});

afterAll(async () => {
  await node?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

it('serves topics, produce and group consume over TLS, and refuses plain text', async () => {
  const env = { TIDE_TLS_CA: path.join(dir, 'ca.crt'), TIDE_BOOTSTRAP: node!.address };
  expect((await runCli(['topics', 'create', 'secure', '--partitions', '2'], { env })).code).toBe(0);
  const produced = await runCli(['produce', 'secure'], { env, stdin: 'one\ntwo\nthree\n' });
  expect(produced.code).toBe(0);
  const consumed = await runCli(
    ['consume', 'secure', '--group', 'g1', '--from-beginning', '--max-messages', '3'],
    { env },
  );
  expect(consumed.code).toBe(0);
  expect(consumed.out.split('\n').filter(Boolean).sort()).toEqual(['one', 'three', 'two']);
  const groups = await runCli(['groups', 'describe', 'g1'], { env });
  expect(groups.out).toContain('secure');
  const plain = await runCli(['topics', 'list'], { env: { TIDE_BOOTSTRAP: node!.address } });
  expect(plain.code).toBe(1);
});
