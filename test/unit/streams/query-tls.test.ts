/** queryServer.tls settings: one set of files for the server and the instance's calls to the others. */
import { queryClientTlsSettings, queryServerTlsSettings } from '../../../streams/runtime/query/query-tls';

const files = { certFile: '/tls/tls.crt', keyFile: '/tls/tls.key', caFile: '/tls/ca.crt' };

it('serves with the files (no client certificates asked by default) and calls with the same', () => {
  expect(queryServerTlsSettings(undefined)).toBeUndefined();
  expect(queryClientTlsSettings(undefined)).toBeUndefined();
  expect(queryServerTlsSettings(files)).toEqual({ ...files, clientAuth: 'none' });
  expect(queryClientTlsSettings({ ...files, serverName: 'wc' })).toEqual({
    enabled: true,
    ...files,
    serverName: 'wc',
  });
});

it('refuses a missing key file or an unknown clientAuth, saying what to set', () => {
  expect(() => queryServerTlsSettings({ ...files, keyFile: '' })).toThrow(/needs certFile and keyFile/);
  expect(() => queryServerTlsSettings({ ...files, clientAuth: 'yes' as never })).toThrow(
    /clientAuth must be one of none, request, require, got yes/,
  );
});
