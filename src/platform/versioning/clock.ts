import { Injectable } from '@nestjs/common';

/**
 * The time that decides whether a deprecated endpoint is past its sunset, read on every request and by the
 * served OpenAPI document: the endpoint goes away when the clock passes the sunset, with no redeploy. One
 * instance per application, so a test can move it (`jest.spyOn(app.get(Clock), 'now')`).
 */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}
