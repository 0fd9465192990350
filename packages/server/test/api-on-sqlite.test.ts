import { describeApi } from './support/describe-api.js';

describeApi('sqlite');
describeApi('sqlite', 'fetch');
