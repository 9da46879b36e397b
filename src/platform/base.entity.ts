// What every table has: a UUID v7 id and UTC timestamps.
import { defineEntity, p } from '@mikro-orm/core';
import { v7 as uuidv7 } from 'uuid';

// Every table: a time-ordered UUID v7 id (contract: ids are UUID v7) and UTC timestamps.
export const BaseSchema = defineEntity({
  name: 'BaseEntity',
  abstract: true,
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => uuidv7()),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export const newId = (): string => uuidv7();

// Path ids that are not UUIDs cannot exist: callers answer 404 as for any unknown id, not a database error.
export { validate as isUuid } from 'uuid';
