import type { Command } from '../ops/command.ts';

export const webhookCommands: Command[] = [];
