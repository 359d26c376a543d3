import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A user's profile; the row is created on the user's first authenticated request. */
@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryColumn({ name: 'user_id', type: 'uuid' })
  userId: string;

  @Column({ type: 'text', array: true })
  roles: string[];

  @Column({ name: 'display_name', type: 'text', nullable: true })
  displayName: string | null;

  @Column({ type: 'text', nullable: true })
  email: string | null;

  @Column({ name: 'region_id', type: 'integer', nullable: true })
  regionId: number | null;

  @Column({ type: 'text', nullable: true })
  segment: string | null;

  @Column({ type: 'integer' })
  version: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', nullable: true })
  updatedAt: Date | null;
}
