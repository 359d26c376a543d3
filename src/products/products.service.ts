import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { OffsetPage, offsetOf, offsetPage } from '../paging/offset-page';
import { AppException } from '../problem/app-exception';
import { CreateProductRequest, PatchProductRequest, ProductResponse } from './product.dto';
import { ProductEntity } from './product.entity';

export function toProductResponse(p: ProductEntity): ProductResponse {
  return {
    productId: p.productId,
    name: p.name,
    price: Number(p.price),
    stock: p.stock,
    status: p.status,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt ?? undefined,
  };
}

/** The catalogue orders are built from. */
@Injectable()
export class ProductsService {
  constructor(@InjectRepository(ProductEntity) private readonly products: Repository<ProductEntity>) {}

  async list(query: { page: number; size: number }): Promise<OffsetPage<ProductEntity>> {
    const [rows, total] = await this.products.findAndCount({
      order: { createdAt: 'DESC', productId: 'DESC' },
      skip: offsetOf(query),
      take: query.size,
    });
    return offsetPage(rows, total, query);
  }

  async get(productId: string): Promise<ProductEntity> {
    const product = await this.products.findOne({ where: { productId } });
    if (!product) throw new AppException('PRODUCT_NOT_FOUND', { args: { productId } });
    return product;
  }

  async create(request: CreateProductRequest): Promise<ProductEntity> {
    const saved = await this.products.save(
      this.products.create({
        name: request.name,
        price: request.price.toFixed(2),
        stock: request.stock,
        status: request.status ?? 'ACTIVE',
      }),
    );
    return this.get(saved.productId);
  }

  async patch(productId: string, patch: PatchProductRequest): Promise<ProductEntity> {
    await this.get(productId);
    const changes: Partial<ProductEntity> = {};
    if (patch.name !== undefined) changes.name = patch.name;
    if (patch.price !== undefined) changes.price = patch.price.toFixed(2);
    if (patch.stock !== undefined) changes.stock = patch.stock;
    if (patch.status !== undefined) changes.status = patch.status;
    if (Object.keys(changes).length > 0) {
      await this.products.update(
        { productId },
        { ...changes, version: () => 'version + 1', updatedAt: () => 'now()' },
      );
    }
    return this.get(productId);
  }
}
