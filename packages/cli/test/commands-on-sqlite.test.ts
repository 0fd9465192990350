import { describeStoreCommands } from './support/describe-store-commands.js';

describeStoreCommands('sqlite');
