import { type StoreFactory, takeUrlParam } from '@flow/core';
import { MysqlCheckpointer } from './mysql-checkpointer.js';

/**
 * Opens `mysql://user:password@host:3306/database?tablePrefix=flow_` stores for tools such as the `flow`
 * command, which finds this factory by the package's name (`flow-checkpoint-mysql`, for `mysql:` URLs).
 * `?tablePrefix=` is taken off the URL; the rest goes to mysql2.
 */
export const stores: StoreFactory = {
  schemes: ['mysql:'],
  async open(url) {
    const { url: target, value: tablePrefix } = takeUrlParam(url, 'tablePrefix');
    return new MysqlCheckpointer(target, tablePrefix === undefined ? {} : { tablePrefix });
  },
};
