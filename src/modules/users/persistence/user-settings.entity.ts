import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The table for `npm run migration:generate`; statements are in UserSettingsRepository. */
@Entity({ name: 'user_settings' })
export class UserSettingsEntity {
  @PrimaryColumn({ name: 'user_id', type: 'uuid' })
  userId: string;

  @Column({ type: 'text' })
  language: string;

  @Column({ name: 'notifications_enabled', type: 'boolean' })
  notificationsEnabled: boolean;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
