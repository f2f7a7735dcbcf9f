// Writes the bad-input corpus under test/fixtures/bad/ (small files; the 50 MB line is made by the test).
import { mkdirSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const dir = new URL('../test/fixtures/bad/', import.meta.url);
mkdirSync(dir, { recursive: true });
const w = (name, data) => writeFileSync(new URL(name, dir), data);
const chat = (i, extra = {}) => JSON.stringify({ messages: [{ role: 'user', content: `question ${i}` }, { role: 'assistant', content: `answer ${i}` }], ...extra });
const lines = (n, f = chat) => Array.from({ length: n }, (_, i) => f(i));

w('malformed.jsonl', [chat(0), '{"messages": [}', chat(1), 'NaN', chat(2), '{"messages": "unterminated', chat(3)].join('\n') + '\n');
w('truncated-last-line.jsonl', [...lines(4), '{"messages": [{"role": "user", "content": "cut h'].join('\n'));
const gz = gzipSync(Buffer.from(lines(3000, (i) => chat(i, { pad: 'z'.repeat(100 + (i % 17)) })).join('\n') + '\n'));
w('truncated.jsonl.gz', gz.subarray(0, Math.floor(gz.length * 0.6)));
w('empty.jsonl', '');
w('whitespace.jsonl', '   \n\n\t  \r\n  ');
// a real 1×1 PNG, renamed
w('image.png.jsonl', Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex'));
w('bom.jsonl', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(lines(3).join('\n') + '\n')]));
const text16 = lines(3).join('\n') + '\n';
w('utf16le.jsonl', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text16, 'utf16le')]));
const be = Buffer.from(text16, 'utf16le');
for (let i = 0; i < be.length; i += 2) [be[i], be[i + 1]] = [be[i + 1], be[i]];
w('utf16be.jsonl', Buffer.concat([Buffer.from([0xfe, 0xff]), be]));
w('invalid-utf8.jsonl', Buffer.concat([Buffer.from(chat(0) + '\n{"messages": [{"role": "user", "content": "caf'), Buffer.from([0xe9, 0xff]), Buffer.from('"}, {"role": "assistant", "content": "ok"}]}\n' + chat(2) + '\n')]));
w('crlf.jsonl', lines(5).join('\r\n') + '\r\n');
w('array-broken-middle.json', '[\n' + [chat(0), chat(1), '{"messages": [{"role": "user", "content": "x"},, ]}', chat(3), chat(4)].join(',\n') + '\n]\n');
const sharegpt = (i) => JSON.stringify({ conversations: [{ from: 'human', value: `hi ${i}` }, { from: 'gpt', value: `hello ${i}` }] });
const anthropic = (i) => JSON.stringify({ request: { model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: `q${i}` }] }, response: { id: `msg_${i}`, type: 'message', role: 'assistant', content: [{ type: 'text', text: `a${i}` }], stop_reason: 'end_turn', usage: { input_tokens: 5, output_tokens: 2 } } });
w('mixed-formats.jsonl', [chat(0), chat(1), sharegpt(2), chat(3), anthropic(4), sharegpt(5), chat(6)].join('\n') + '\n');
const deep = '['.repeat(10000) + '1' + ']'.repeat(10000);
w('deep-nesting.jsonl', [chat(0), `{"messages": [{"role": "user", "content": "deep"}, {"role": "assistant", "content": "x"}], "payload": ${deep}}`, chat(2)].join('\n') + '\n');
w('big-ints.jsonl', ['{"conversation_id": 123456789012345678901, "messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]}', '{"conversation_id": 123456789012345678902, "messages": [{"role": "user", "content": "c"}, {"role": "assistant", "content": "d"}]}'].join('\n') + '\n');
const stepRow = (traj, i, text) => JSON.stringify({ step_id: `${traj}:${i}`, trajectory_uid: traj, prompt_uid: 'p-dup', step_index: i, is_last: i === 1, channel: 'train', messages: [{ role: 'user', content: text }], response: { role: 'assistant', content: `re: ${text}` }, reward: 1, status: 'ok', source_format: 'step-record' });
w('duplicate-step-ids.jsonl', [stepRow('dup-a', 0, 'one'), stepRow('dup-a', 1, 'two'), stepRow('dup-a', 1, 'two again'), stepRow('dup-b', 0, 'three')].join('\n') + '\n');
console.log('wrote test/fixtures/bad/');
