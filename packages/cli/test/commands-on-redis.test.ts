import { describeStoreCommands } from './helpers/describe-store-commands.js';

describeStoreCommands('redis');
