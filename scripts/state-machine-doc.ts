import * as fs from 'node:fs';
import * as path from 'node:path';
import { renderStateMachineMarkdown } from '../src/modules/orders/http/order-state-machine.docs';

/** Writes docs/order-state-machine.md from the transition table (npm run docs:state-machine). */
const target = path.resolve(__dirname, '..', '..', 'docs', 'order-state-machine.md');
fs.writeFileSync(target, renderStateMachineMarkdown());
console.log(`wrote ${target}`);
