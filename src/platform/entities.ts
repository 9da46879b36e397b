// Every entity the ORM knows about; one list shared by the processes, the CLI and the tests.
import { User } from '../auth/user.entity.ts';
import { ApiKey } from '../auth/api-key.entity.ts';
import { Merchant } from '../merchants/merchant.entity.ts';

export const entities = [User, ApiKey, Merchant];
