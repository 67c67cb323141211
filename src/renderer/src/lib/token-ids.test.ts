import { expect, test } from 'vitest';
import { defaultTokenId, suggestTokenIds } from './token-ids';

const token = (symbol: string, contract: string, chain_id = 'ETH') => ({ chain_id, symbol, contract_address: contract });

test('five UNI-V2 contracts get five IDs, each with its contract’s last digits; a symbol the catalogue has is told apart too', () => {
  const uni = [
    '0xc2adda861f89bbb333c90c492cb837741916a225',
    '0x2fdbadf3c4d5a8666bc06645b8358ab803996e28',
    '0xd3d2e2692501a5c9ca623199d38826e513033a17',
  ];
  const ids = suggestTokenIds(
    [
      ...uni.map((c) => token('UNI-V2', c)),
      token('ANJ', '0xcd62b1c403fa761baadfc74c525ce2b51780b184'),
      token('USDT', '0x1111111111111111111111111111111111111234'),
      token('', '0x2222222222222222222222222222222222222222'),
    ],
    new Set(['ETH', 'ETH_USDT', 'ETH_USDC']),
  );
  expect(ids).toEqual(['ETH_UNI_V2_A225', 'ETH_UNI_V2_6E28', 'ETH_UNI_V2_3A17', 'ETH_ANJ', 'ETH_USDT_1234', '']);
  expect(new Set(ids.filter(Boolean)).size).toBe(5);
  expect(defaultTokenId('ETH', 'UNI-V2')).toBe('ETH_UNI_V2');
});

test('a tail taken as well takes more digits; a long symbol is cut to keep the ID within 32 characters', () => {
  const ids = suggestTokenIds(
    [token('X', '0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1234'), token('X', '0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb1234')],
    new Set(),
  );
  expect(ids).toEqual(['ETH_X_1234', 'ETH_X_BB1234']);
  const [long] = suggestTokenIds(
    [token('AVERYLONGTOKENSYMBOLINDEED', '0x' + 'cd'.repeat(20))],
    new Set(['ETH_AVERYLONGTOKENSYMBOLINDEED']),
  );
  expect(long).toBe('ETH_AVERYLONGTOKENSYMBOLIND_CDCD');
  expect(long!.length).toBeLessThanOrEqual(32);
});
