import { describeProcessRacesOnJsonFile } from './on-json-file.js';

describeProcessRacesOnJsonFile();
